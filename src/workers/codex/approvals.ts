// The approval broker (SPEC §7): a Codex command approval is accepted only for
// an exact certified test command or a bounded read-only inspection inside the
// checkout; network, writes and everything else are declined.
import { isAbsolute, relative, resolve } from 'node:path';
import { WORKER } from '../../core/limits.js';

export type Decision = 'accept' | 'decline';
export interface ApprovalVerdict {
  readonly decision: Decision;
  readonly reason: string;
}

export interface ApprovalPolicy {
  /** The checkout root; every cwd and path must stay inside it. */
  readonly root: string;
  readonly certifiedTests: readonly (readonly string[])[];
}

const SHELL_WRAPPER = /^(?:\/usr)?(?:\/bin\/)?(?:ba|z|da)?sh\s+-l?c\s+([\s\S]+)$/;

/** Splits a shell command into words; null when it uses anything beyond plain words and quotes. */
export function shellWords(command: string): string[] | null {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (ch === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return null;
      cur += command.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (ch === '"') {
      const end = command.indexOf('"', i + 1);
      if (end < 0) return null;
      const inner = command.slice(i + 1, end);
      if (/[$`\\!]/.test(inner)) return null;
      cur += inner;
      i = end;
      inWord = true;
    } else if (ch === ' ' || ch === '\t') {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else if (/[;&|<>()$`\\\n\r*?[\]{}~#!]/.test(ch)) {
      return null;
    } else {
      cur += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  // A leading NAME=value word is an environment assignment, not a program.
  return words.length && words[0]!.includes('=') ? null : words;
}

/** The words of the command the model wants to run, unwrapping one `bash -lc '…'`. */
export function commandWords(command: unknown): string[] | null {
  const text = Array.isArray(command) ? command.map(String) : typeof command === 'string' ? [command] : null;
  if (!text) return null;
  if (text.length > 1) {
    const [sh, flag, script] = text;
    if (text.length === 3 && /^(?:\/usr)?(?:\/bin\/)?(?:ba|z|da)?sh$/.test(sh!) && /^-l?c$/.test(flag!)) return shellWords(script!);
    return text;
  }
  const one = text[0]!.trim();
  const wrapped = SHELL_WRAPPER.exec(one);
  if (wrapped) {
    const inner = shellWords(wrapped[1]!);
    return inner && inner.length === 1 ? shellWords(inner[0]!) : null;
  }
  return shellWords(one);
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

const READ_ONLY: Record<string, (args: string[]) => boolean> = {
  cat: (a) => a.every((x) => !x.startsWith('-') || x === '-n'),
  head: (a) => a.every((x) => /^-n$|^-\d+$|^\d+$|^[^-]/.test(x)),
  tail: (a) => a.every((x) => /^-n$|^-\d+$|^\+?\d+$|^[^-]/.test(x)),
  nl: (a) => a.every((x) => x === '-ba' || !x.startsWith('-')),
  wc: (a) => a.every((x) => /^-[lwc]+$/.test(x) || !x.startsWith('-')),
  ls: (a) => a.every((x) => /^-[alR1hF]+$/.test(x) || !x.startsWith('-')),
  sed: (a) => a[0] === '-n' && a.length >= 2 && /^\d+(,\d+)?p$/.test(a[1]!) && a.slice(2).every((x) => !x.startsWith('-')),
  grep: (a) => a.every((x) => /^-[nrRiwFEclhH]+$/.test(x) || !x.startsWith('-')),
  rg: (a) => a.every((x) => /^-[niwFlcuSs]+$|^--(?:line-number|fixed-strings|ignore-case|word-regexp|files|count|no-heading)$/.test(x) || !x.startsWith('-')),
};

// Arguments of a read-only inspection that name files must stay in the
// checkout; a pattern argument that looks like a path is held to the same rule
// (harmless: patterns rarely start with / or contain ..).
function pathsInside(root: string, cwd: string, args: string[]): boolean {
  return args.filter((a) => !a.startsWith('-')).every((a) => inside(root, resolve(cwd, a)));
}

export function decideCommandApproval(policy: ApprovalPolicy, params: Record<string, unknown>): ApprovalVerdict {
  const extra = params.additionalPermissions as { network?: { enabled?: unknown } | null; fileSystem?: unknown } | null | undefined;
  if (params.networkApprovalContext || (extra?.network && extra.network.enabled !== false))
    return { decision: 'decline', reason: 'network access is never granted' };
  if (extra?.fileSystem) return { decision: 'decline', reason: 'additional filesystem permissions are never granted' };
  const cwd = typeof params.cwd === 'string' ? resolve(params.cwd) : null;
  if (!cwd || !inside(policy.root, cwd)) return { decision: 'decline', reason: 'command runs outside the checkout' };
  const words = commandWords(params.command);
  if (!words || words.length === 0) return { decision: 'decline', reason: 'command uses shell syntax beyond plain words' };
  if (policy.certifiedTests.some((argv) => argv.length === words.length && argv.every((w, i) => w === words[i])))
    return { decision: 'accept', reason: 'exact certified test command' };
  const check = READ_ONLY[words[0]!];
  const args = words.slice(1);
  if (check && args.length <= WORKER.maxInspectionArgs && check(args) && pathsInside(policy.root, cwd, args))
    return { decision: 'accept', reason: 'bounded read-only inspection inside the checkout' };
  return { decision: 'decline', reason: 'not a certified test command or bounded read-only inspection' };
}
