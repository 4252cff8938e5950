// What the classifier decides about one occurrence of a carrier: nothing to
// do with the value (ignored), not understood (unaccounted: a gap), or a step
// of the flow with its role, its range and where the value goes next.
import type { FlowRole } from '../../core/contracts.js';
import type { SyntaxNode } from '../parse/treesitter.js';
import type { Hop } from './hops.js';

export type Verdict =
  | { readonly kind: 'ignored' }
  | { readonly kind: 'unaccounted' }
  | {
      readonly kind: 'step';
      readonly role: FlowRole;
      /** The construct the step's line range is taken from. */
      readonly node: SyntaxNode;
      /** When the range starts earlier than `node` (attributes above a field). */
      readonly from?: SyntaxNode;
      /** When the range ends where this node starts (a function cited by its signature). */
      readonly until?: SyntaxNode;
      readonly symbol: string | null;
      readonly description: string;
      /** For a parser-filled field: the declaration itself, which also carries the value. */
      readonly carrier?: { readonly node: SyntaxNode; readonly description: string };
      /**
       * Other roles the same construct plays (a flag whose default the value is: the flag takes precedence;
       * a read that decides an `if`: a consumer).
       */
      readonly also?: readonly AlsoStep[];
      readonly hop?: Hop;
      /** Name of a callee the value is passed to and that the trace does not enter. */
      readonly passedTo?: string;
      /** The call the value is an argument of, so the trace can follow it into the callee's parameter. */
      readonly argumentCall?: SyntaxNode;
      /** The local the call's result is bound to: where the value lives on when the callee is not in the repository. */
      readonly resultHop?: Hop;
      /** The function that returns the value: its callers' results carry it on. */
      readonly returnedFrom?: SyntaxNode;
    };

export interface AlsoStep {
  readonly role: FlowRole;
  readonly node: SyntaxNode;
  readonly description: string;
  /** Cited only when no other step of the flow plays the role (a branch's conversion of the value). */
  readonly fallback?: true;
}
