// SessionStart (and UserPromptSubmit): a short note the client adds to the
// model's context, saying how to ask Needle and what comes back. Kept small:
// the model reads it on every session.
import { ROUTE_IDS, SUBJECT_KINDS } from '../core/semantic.js';
import { CLIENT_EVENT_NAMES, type HookEvent } from './payload.js';

export function protocolText(mcp: boolean): string {
  const ask = mcp
    ? 'call the need_context tool (server needle), or end your turn with an @@need block'
    : 'end your turn with an @@need block';
  return [
    `Needle serves checked repository evidence. Before searching or opening files to find where something is implemented, how a value flows at runtime, or which test covers it, ${ask}:`,
    '@@need',
    '@route trace.state-flow',
    '@subject cli_option:--dry-run',
    '',
    'How does --dry-run reach the upload?',
    '@@end',
    `Routes: ${ROUTE_IDS.join(', ')}. Subject kinds: ${SUBJECT_KINDS.join(', ')}. ` +
      'The answer arrives as a [NEEDLE_CONTEXT] block of path:line pointers, flow steps and a test command; use it and do not repeat that discovery. ' +
      'A bypass means continue with your own tools.',
  ].join('\n');
}

export interface ContextAnswer {
  readonly hookSpecificOutput: { readonly hookEventName: string; readonly additionalContext: string };
}

export function contextAnswer(event: Extract<HookEvent, 'session-start' | 'user-prompt-submit'>, mcp: boolean): ContextAnswer {
  return { hookSpecificOutput: { hookEventName: CLIENT_EVENT_NAMES[event], additionalContext: protocolText(mcp) } };
}
