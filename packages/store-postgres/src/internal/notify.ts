// Inbox notifications carry ids only, never a reply (payloads may be logged, and the queue is
// kept in the data directory). What one statement announces on one channel goes in as few
// notifications as fit: each wakes every listening connection of the server, and each costs a
// parse in every process that hears it.
//
//   {"e":"pending","n":[["<row id>","<conversation>","<prompt id>"], …]}
//
// The prompt id is left out (null) when it would make an entry long; the row id names the
// prompt then. The older form, one prompt per notification, is still read:
//
//   {"e":"answered","id":"<row id>","c":"<conversation>","p":"<prompt id>"}

/** One prompt a notification names. */
export interface Noticed {
  readonly event: "pending" | "answered";
  readonly id: string;
  readonly conversation: string;
  readonly promptId?: string;
}

/**
 * SQL evaluating to the number of notifications sent for the rows of a CTE named `notes`, with
 * columns `channel`, `event`, `ord`, `id`, `conversation` and `prompt_id`: one notification per
 * channel and event, or more when its entries pass about 4 kB (a payload stops at 8000 bytes).
 */
export const SEND_NOTES = `(SELECT count(*) FROM (
    SELECT pg_notify(channel, '{"e":"' || event || '","n":[' || string_agg(entry, ',' ORDER BY ord) || ']}')
      FROM (SELECT channel, event, ord, entry,
                   (sum(octet_length(entry)) OVER (PARTITION BY channel, event ORDER BY ord)
                     - octet_length(entry)) / 4000 AS chunk
              FROM (SELECT channel, event, ord,
                           json_build_array(id::text, conversation,
                             CASE WHEN octet_length(conversation) + octet_length(prompt_id) < 3000
                                  THEN prompt_id END)::text AS entry
                      FROM notes) e) c
     GROUP BY channel, event, chunk) s)`;

/** The prompts a notification's payload names (none when it is not one of ours). */
export function parseNotices(payload: string | undefined): Noticed[] {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(payload ?? "") as Record<string, unknown>;
  } catch {
    return [];
  }
  if (typeof value !== "object" || value === null) return [];
  const event = value.e;
  if (event !== "pending" && event !== "answered") return [];
  if (Array.isArray(value.n)) {
    const found: Noticed[] = [];
    for (const entry of value.n as unknown[]) {
      if (!Array.isArray(entry)) continue;
      const [id, conversation, promptId] = entry as unknown[];
      if (typeof id !== "string" || typeof conversation !== "string") continue;
      found.push({
        event,
        id,
        conversation,
        ...(typeof promptId === "string" ? { promptId } : {}),
      });
    }
    return found;
  }
  if (typeof value.id !== "string" || typeof value.c !== "string") return [];
  return [
    {
      event,
      id: value.id,
      conversation: value.c,
      ...(typeof value.p === "string" ? { promptId: value.p } : {}),
    },
  ];
}
