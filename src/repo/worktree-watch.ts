// Knowing the source snapshot digest without running git (SPEC §9, §16a).
//
// A long-lived server watches every directory git could find a source file in
// (inotify through fs.watch, one watch per directory, none recursive): the
// work tree minus `.git` and the directories git ignores as a whole, plus the git directory itself (index, HEAD, info/exclude,
// config) and the directory of the global excludes file. In the background,
// after every watch is armed, it takes the snapshot once (repo/snapshot.ts)
// and remembers it with the watch generation it was taken at. Any event in a
// watched directory — a file written, created, removed, renamed or chmod-ed —
// bumps the generation, and from then on the remembered digest is not
// reported until a new one was taken, again in the background, after the
// events quiet down (a created or removed directory re-walks the tree).
//
// So `current()` costs no process and no walk, and neither does `listing()`,
// the snapshot's files (validators' membership checks). They are null — and the caller
// takes the snapshot itself — before the first verification, while a change
// is being re-verified, and for good when watching failed (inotify watch
// limit, more directories than WATCH.maxDirectories, a watch error).
// Callers must let the event loop turn once (setImmediate) between reading a
// request and trusting `current()`, so that an edit made before the request
// was sent has been delivered (the kernel queues the event in the write
// itself; the loop processes every ready descriptor before its check phase).
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Digest } from '../core/digest.js';
import { gitBytesAsync } from './git.js';
import { captureSnapshotAsync, splitNul, type SnapshotListing } from './snapshot.js';
import { GIT_DIRS, gitDirsOf, xdgGitFile } from './git-settings.js';

export const WATCH = {
  /** Above this many directories the watch gives up (callers take the snapshot with git). */
  maxDirectories: 20_000,
  /** Quiet time after the last event before the snapshot is taken again. */
  settleMs: 100,
} as const;

export interface WorktreeState {
  /** The current source snapshot digest when it is known without running anything, else null. */
  current(): Digest | null;
  /**
   * A token for the worktree as it is now, while its digest is still being
   * taken: non-null only when every directory is watched, so that any later
   * change moves it. Null when not watching.
   */
  pending?(): number | null;
  /** The digest of the worktree as it was at `token`, once known, if nothing changed since; else null. */
  digestAt?(token: number): Digest | null;
  /** Calls `listener` each time the watch comes to know the current snapshot. */
  onKnown?(listener: () => void): void;
  /** The files of the snapshot `current()` reports, when it reports one; else null. */
  listing?(): SnapshotListing | null;
}

export class WorktreeWatch implements WorktreeState {
  private generation = 0;
  private verified: { readonly digest: Digest; readonly listing: SnapshotListing; readonly generation: number } | null = null;
  private readonly watchers = new Map<string, FSWatcher>();
  private timer: NodeJS.Timeout | null = null;
  private walkNeeded = true;
  private stopped = false;
  /** Every directory is watched (between a completed walk and the next one). */
  private armed = false;
  private readonly listeners: (() => void)[] = [];
  /** Snapshots taken by the watch (tests and benchmarks). */
  verifications = 0;

  constructor(
    readonly root: string,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** Arms the watches and takes the first snapshot after `delayMs`, off the caller's path. */
  start(delayMs = 0): this {
    this.schedule(delayMs);
    return this;
  }

  current(): Digest | null {
    const v = this.verified;
    return v !== null && v.generation === this.generation && !this.stopped ? v.digest : null;
  }

  listing(): SnapshotListing | null {
    return this.current() === null ? null : this.verified!.listing;
  }

  onKnown(listener: () => void): void {
    this.listeners.push(listener);
  }

  pending(): number | null {
    return this.armed && !this.stopped ? this.generation : null;
  }

  // The snapshot known at `token` was started at that generation and nothing
  // changed since: the worktree then, now and when it was read are the same.
  digestAt(token: number): Digest | null {
    return token === this.generation ? this.current() : null;
  }

  /** True once a snapshot is known and nothing changed since (tests wait for it). */
  get settled(): boolean {
    return this.current() !== null;
  }

  close(): void {
    this.stopped = true;
    this.armed = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.verify();
    }, delayMs);
    this.timer.unref();
  }

  /**
   * Any event withholds the digest. The set of watched directories is redone
   * when entries were created, removed or renamed, when an ignore file
   * changed, and on any change in the git directory or the global excludes
   * file's directory (the index decides what is tracked, and a tracked file
   * inside an ignored directory is visible to git grep).
   */
  private changed(kind: string, name: string | Buffer | null, structural: boolean): void {
    this.generation++;
    if (kind === 'rename' || structural || name === null || String(name) === '.gitignore') this.walkNeeded = true;
    this.schedule(WATCH.settleMs);
  }

  private fail(why: string): void {
    this.log(`worktree watch off (snapshots are taken with git): ${why}`);
    this.close();
  }

  private running = false;
  private again = false;

  private verify(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.verifyOnce().finally(() => {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.verify();
      }
    });
  }

  private async verifyOnce(): Promise<void> {
    try {
      if (this.walkNeeded) {
        this.walkNeeded = false;
        await this.rewatch();
      }
    } catch (e) {
      this.fail((e as Error).message);
      return;
    }
    if (this.stopped) return;
    // Events after this point (delivered later) make the digest below stale.
    const generation = this.generation;
    try {
      const { sourceDigest: digest, listing } = await captureSnapshotAsync(this.root);
      this.verifications++;
      this.verified = { digest, listing, generation };
      if (generation === this.generation) {
        for (const l of this.listeners)
          try {
            l();
          } catch (e) {
            this.log(`worktree watch listener failed: ${(e as Error).message}`);
          }
        // Logged after the listeners (the engine's first-hit rehearsal): a
        // reader of this line finds the server idle again.
        this.log(`worktree watch: ${this.watchers.size} directories watched, snapshot ${digest.slice(3, 15)} known`);
      }
    } catch (e) {
      this.verified = null;
      this.log(`worktree snapshot failed: ${(e as Error).message}`);
      this.schedule(WATCH.settleMs * 10);
    }
  }

  /**
   * Re-arms every watch. Each directory is watched before it is listed, so a
   * subdirectory created while the walk runs is either listed or reported.
   */
  private async rewatch(): Promise<void> {
    this.verified = null;
    this.armed = false;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    for (const dir of await this.gitDirectories()) this.arm(dir, true);
    const listing = await gitBytesAsync(this.root, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory']);
    const ignored = new Set(
      splitNul(listing)
        .map((b) => b.toString('utf8'))
        .filter((p) => p.endsWith('/')),
    );
    const walk = async (rel: string): Promise<void> => {
      if (this.stopped) return;
      if (this.watchers.size >= WATCH.maxDirectories) throw new Error(`more than ${WATCH.maxDirectories} directories`);
      const abs = rel === '' ? this.root : join(this.root, rel);
      this.arm(abs, false);
      for (const e of await readdir(abs, { withFileTypes: true })) {
        if (!e.isDirectory() || e.name === '.git') continue;
        const child = rel === '' ? e.name : `${rel}/${e.name}`;
        if (ignored.has(`${child}/`)) continue;
        await walk(child);
      }
    };
    // The work tree's directories git could list a file in: not .git, not ignored as a whole.
    await walk('');
    this.armed = !this.stopped;
  }

  private arm(dir: string, structural: boolean): void {
    if (this.watchers.has(dir)) return;
    const w = watch(dir, { persistent: false }, (kind, name) => this.changed(kind, name, structural));
    w.on('error', (e) => this.fail(`${dir}: ${e.message}`));
    this.watchers.set(dir, w);
  }

  /** The git directory (index, HEAD, config), its info/ (exclude) and the global excludes file's directory. */
  private async gitDirectories(): Promise<string[]> {
    const { gitDir, commonDir } = gitDirsOf(this.root, await gitBytesAsync(this.root, GIT_DIRS));
    const out = [gitDir, join(commonDir, 'info'), commonDir];
    const excludes = (await gitBytesAsync(this.root, ['config', '--path', '--get', 'core.excludesFile'], { okCodes: [0, 1] })).toString('utf8').trim() || xdgGitFile('ignore');
    out.push(dirname(excludes));
    return out.filter((d, i) => out.indexOf(d) === i && existsSync(d));
  }
}
