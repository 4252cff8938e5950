// Whether a process still exists (signal 0 delivers nothing). The owners of
// leases, run directories and applies in progress are recorded by pid; only
// an owner that is gone may have its work taken over or rolled back.

export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, under another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
