// Whether Codex trusts Needle's hooks, asked of Codex itself. Codex runs a
// non-managed hook only after the user reviewed it (/hooks in the TUI): it
// records `[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash` in
// $CODEX_HOME/config.toml and skips a hook whose current hash differs. Needle
// never computes that hash: `codex app-server` answers `hooks/list` with each
// hook's trustStatus (measured on codex 0.171.0), so the answer stays right
// when Codex changes how it hashes. A project's `.codex/` layer is loaded only
// in a trusted project; its hooks are then simply absent from the list.
import { CODEX_TRUST, WORKER } from '../../core/limits.js';
import { spawnGroup } from '../group.js';
import { RpcPeer } from './rpc.js';

export type HookTrust =
  /** Every Needle hook in the file is trusted (or managed by policy). */
  | { readonly state: 'trusted' }
  /** Codex lists them, but at least one is new or changed since it was trusted. */
  | { readonly state: 'untrusted'; readonly modified: boolean }
  /** Codex does not load the file at all (a project `.codex/` outside a trusted project). */
  | { readonly state: 'not-loaded' }
  | { readonly state: 'unknown'; readonly why: string };

export interface HookTrustQuery {
  /** The codex executable. */
  readonly codex: string;
  /** Directory Codex resolves project layers from (the repository). */
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** The hooks.json whose entries are Needle's. */
  readonly hooksFile: string;
  /** Which listed hooks are Needle's (by command). */
  readonly ours: (command: string) => boolean;
}

interface ListedHook {
  readonly sourcePath?: unknown;
  readonly command?: unknown;
  readonly trustStatus?: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads hooks/list for `cwd` and classifies Needle's hooks from `hooksFile`. */
export async function codexHookTrust(q: HookTrustQuery): Promise<HookTrust> {
  let group;
  try {
    group = spawnGroup({ argv: [q.codex, 'app-server'], cwd: q.cwd, env: q.env });
  } catch (e) {
    return { state: 'unknown', why: `cannot start ${q.codex} app-server (${(e as Error).message})` };
  }
  const failed = new Promise<never>((_, reject) => {
    group.child.once('error', (e) => reject(new Error(`cannot start ${q.codex} app-server (${e.message})`)));
  });
  const rpc = new RpcPeer(group.child.stdin!, group.child.stdout!, {
    onNotification: () => {},
    onRequest: () => Promise.reject(new Error('not supported')),
    onFatal: () => {},
  }, WORKER.maxRpcLineBytes);
  try {
    const listed = await Promise.race([
      failed,
      (async () => {
        await rpc.request('initialize', { clientInfo: { name: 'needle', title: 'Needle', version: '0' }, capabilities: null }, CODEX_TRUST.timeoutMs);
        rpc.notify('initialized');
        return rpc.request('hooks/list', { cwds: [q.cwd] }, CODEX_TRUST.timeoutMs);
      })(),
    ]);
    return classify(listed, q);
  } catch (e) {
    return { state: 'unknown', why: (e as Error).message.split('\n', 1)[0]! };
  } finally {
    group.child.stdin?.end();
    await group.terminate();
  }
}

function classify(listed: unknown, q: HookTrustQuery): HookTrust {
  const data = isRecord(listed) && Array.isArray(listed.data) ? listed.data : null;
  if (!data) return { state: 'unknown', why: 'hooks/list answered without data' };
  const hooks = data.flatMap((entry: unknown) => (isRecord(entry) && Array.isArray(entry.hooks) ? (entry.hooks as ListedHook[]) : []));
  const ours = hooks.filter((h) => h.sourcePath === q.hooksFile && typeof h.command === 'string' && q.ours(h.command));
  if (ours.length === 0) return { state: 'not-loaded' };
  const pending = ours.filter((h) => h.trustStatus !== 'trusted' && h.trustStatus !== 'managed');
  if (pending.length === 0) return { state: 'trusted' };
  return { state: 'untrusted', modified: pending.some((h) => h.trustStatus === 'modified') };
}
