/** Whether a process with this id runs on this machine (a signal-0 probe). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (cause) {
    // EPERM: it exists, but belongs to another user.
    return (cause as { code?: unknown }).code === "EPERM";
  }
}
