// implementation_location by the static analyzer: candidate files come from
// git grep over the subject's spellings, only those files are parsed, and the
// defining construct is chosen by a deterministic ranking (ambiguous when the
// best rank is shared). See locate-definitions, locate-options, locate-paths.
import type { SubjectKind } from '../core/semantic.js';
import type { AnalysisContext } from './context.js';
import type { LocateResult } from './candidates.js';
import { locateSymbol, locateTest } from './locate-definitions.js';
import { locateConfigKey, locateOption } from './locate-options.js';
import { locateFile, locateModule } from './locate-paths.js';

export type { LocateResult } from './candidates.js';

export interface LocateSubject {
  readonly kind: SubjectKind;
  readonly name: string;
}

/** Requires `await loadLanguages()` beforehand (parsing is synchronous). */
export function locateImplementation(ctx: AnalysisContext, subject: LocateSubject): LocateResult {
  switch (subject.kind) {
    case 'symbol':
      return locateSymbol(ctx, subject.name);
    case 'cli_option':
      return locateOption(ctx, subject.name);
    case 'configuration_key':
      return locateConfigKey(ctx, subject.name);
    case 'test':
      return locateTest(ctx, subject.name);
    case 'file':
      return locateFile(ctx, subject.name);
    case 'module':
      return locateModule(ctx, subject.name);
    case 'behavior':
      return {
        kind: 'unresolved',
        reason: 'a behavior has no name to search for; the static analyzer locates named subjects only (ask a model worker, or name a symbol, option, key, test, file or module)',
      };
  }
}
