/**
 * `step` as a function to call whenever there may be something new: it runs one `step` at a
 * time, and a call that comes while one runs makes it run once more after (never more than once
 * more, however many calls came). Nothing runs once `stopped()` is true.
 */
export function oneAtATime(step: () => Promise<void>, stopped: () => boolean): () => void {
  let running = false;
  let again = false;
  return () => {
    if (stopped()) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    void (async () => {
      do {
        again = false;
        await step();
      } while (again && !stopped());
      running = false;
    })();
  };
}
