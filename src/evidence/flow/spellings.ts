// The names under which a subject appears in code. A CLI option or key shows up
// as dry_run / DryRun / dryRun / DRY_RUN in identifiers and as `dry-run` inside
// option literals; a symbol shows up only as itself.
import { identifierSpellings, type SubjectKind } from '../../core/semantic.js';
import { escapeRegExp } from '../../core/text.js';


/** `DryRun`, `Proxy`: an upper-case initial followed by lower case somewhere. */
const PASCAL = /^[A-Z](?=[A-Za-z0-9]*[a-z])[A-Za-z0-9]*$/;

/** Whether a spelling is the PascalCase one, which names types and labels rather than values. */
export const isPascal = (spelling: string): boolean => PASCAL.test(spelling);

export interface Subject {
  readonly kind: SubjectKind;
  readonly name: string;
}

export interface Position {
  readonly column: number;
  readonly length: number;
}

export class Spellings {
  private readonly word: RegExp;
  private readonly optionList: RegExp | null;
  private readonly literals: ReadonlySet<string>;

  constructor(
    /** Identifier forms, matched as whole words. */
    readonly identifiers: readonly string[],
    /** The dashed form of an option, matched only inside option literals. */
    readonly dashed: string | null,
  ) {
    const alternatives = identifiers.map(escape).join('|');
    this.word = new RegExp(`(?<![A-Za-z0-9_$])(?:${alternatives})(?![A-Za-z0-9_$])`, 'g');
    // A whole option spec as commander or clap's builder writes it: `-n, --dry-run`, `--dry-run <when>`, `--[no-]dry-run`
    // (not a help line, `--cors[=headers] Enable CORS`);
    // a one-word option (`-d, --dot`) has no dashed form, and is written as its lower-case identifier.
    const flag = dashed ?? identifiers.find((i) => /^[a-z][a-z0-9]*$/.test(i)) ?? null;
    this.optionList = flag ? new RegExp(`^(-\\w,?\\s*)?--(\\[no-\\]|no-)?${escapeRegExp(flag)}(\\s*[<\\[][^<>\\[\\]]*[>\\]])?$`) : null;
    // `'Proxy'` in a string is a label (`chalk.magenta('Proxy')`); no parser, environment or config
    // file names an option or key in PascalCase, so that form is an identifier only.
    const forms = (dashed ? [...identifiers, dashed] : [...identifiers]).filter((f) => !PASCAL.test(f));
    this.literals = new Set(forms.flatMap((f) => [f, `-${f}`, `--${f}`]));
  }

  /** Patterns for git grep -w; the dashed form only finds candidates and is confirmed in the tree. */
  get grepPatterns(): string[] {
    return this.dashed ? [...this.identifiers, this.dashed] : [...this.identifiers];
  }

  mentions(text: string): boolean {
    this.word.lastIndex = 0;
    return this.word.test(text);
  }

  /** Every place on a line where a spelling occurs as a token (identifier or dashed form). */
  positions(line: string): Position[] {
    const out: Position[] = [];
    for (const m of line.matchAll(this.word)) out.push({ column: m.index, length: m[0].length });
    if (this.dashed) {
      const dashedRe = new RegExp(`(?<![A-Za-z0-9_])${escapeRegExp(this.dashed)}(?![A-Za-z0-9_-])`, 'g');
      for (const m of line.matchAll(dashedRe)) out.push({ column: m.index, length: m[0].length });
    }
    return out.sort((a, b) => a.column - b.column);
  }

  /** The string names the option or key itself (`'--dry-run'`, `"dry-run"`, `'-n, --dry-run'`), not prose about it. */
  isOptionLiteral(content: string): boolean {
    const t = content.trim();
    return this.literals.has(t) || (this.optionList?.test(t) ?? false);
  }

  /** `{dry_run}` or `${dryRun}` inside a string: a read hidden in a format string. */
  isInterpolated(stringText: string): boolean {
    return this.identifiers.some((s) => new RegExp(`\\{[^{}]*(?<![A-Za-z0-9_$])${escapeRegExp(s)}(?![A-Za-z0-9_$])[^{}]*\\}`).test(stringText));
  }
}

/**
 * `--no-splitting` lands in `splitting` when the parser negates it (commander,
 * cac, yargs); the declaration's carrier says so. Only that carrier is added,
 * never the bare word on its own guess: ripgrep's `--no-ignore` is `no_ignore`.
 */
function negatedCarrier(kind: Subject['kind'], name: string, carrier: string | null): string[] {
  const positive = /^-*no-(.+)$/.exec(name)?.[1];
  if (kind !== 'cli_option' || !positive || !carrier) return [];
  return identifierSpellings(positive).includes(carrier) ? identifierSpellings(positive) : [];
}

/**
 * Spellings for tracing or finding tests; null when the subject has no identifier to follow.
 * `carrier` is the located declaration's symbol, when there is one.
 */
export function subjectSpellings(subject: Subject, carrier: string | null = null): Spellings | null {
  const name = subject.name.trim();
  switch (subject.kind) {
    case 'cli_option':
    case 'configuration_key': {
      const forms = [...identifierSpellings(name), ...negatedCarrier(subject.kind, name, carrier)];
      const dashed = forms.find((f) => f.includes('-')) ?? null;
      const identifiers = forms.filter((f) => /^[A-Za-z_$][\w$]*$/.test(f));
      return identifiers.length > 0 ? new Spellings(identifiers, dashed) : null;
    }
    case 'symbol':
    case 'module':
    case 'test': {
      const last = name.split(/::|\.|\/|#/).filter(Boolean).pop() ?? '';
      return /^[A-Za-z_$][\w$]*$/.test(last) ? new Spellings([last], null) : null;
    }
    case 'file': {
      const base = name.slice(name.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '');
      return /^[A-Za-z_$][\w$]*$/.test(base) ? new Spellings([base], null) : null;
    }
    case 'behavior':
      return null;
  }
}
