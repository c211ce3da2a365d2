/**
 * `text` shown in at most `max` characters (code points): longer text keeps its first `max - 1`
 * and ends in "…". A character beyond U+FFFF is kept whole, never split into a lone surrogate,
 * which would make the text invalid in a provider's JSON request and in a saved conversation.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  // Past 2 × max + 1 code units there are more than `max` code points; a pair the slice splits
  // sits at its very end, beyond what is kept.
  const points = Array.from(text.slice(0, 2 * max + 1));
  return points.length > max ? `${points.slice(0, max - 1).join("")}…` : text;
}
