// Process liveness for tests: a killed process whose parent is gone stays a
// zombie until init reaps it, so "gone" means absent or in state Z.
import { readFileSync } from 'node:fs';

export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Bounded wait for SIGKILL delivery (asynchronous in the kernel); true when the process is gone. */
export async function gone(pid: number, withinMs = 3_000): Promise<boolean> {
  const end = Date.now() + withinMs;
  while (running(pid)) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}
