// What per-language extraction yields for one parsed file: definitions,
// CLI option declarations and configuration-key reads, each with the exact
// 1-based inclusive line span of its construct. Locate ranks these; it never
// re-reads syntax itself.

export interface Span {
  readonly startLine: number;
  readonly endLine: number;
  /** Where the construct's body begins; ranges longer than the location bound clip to [startLine, bodyLine]. */
  readonly bodyLine?: number;
}

export type DefinitionKind =
  | 'function'
  | 'method'
  | 'struct'
  | 'class'
  | 'interface'
  | 'enum'
  | 'variant'
  | 'trait'
  | 'type'
  | 'module'
  | 'const'
  | 'static'
  | 'variable'
  | 'field'
  | 'macro'
  | 'test';

export interface Definition extends Span {
  readonly name: string;
  readonly kind: DefinitionKind;
  /** Enclosing type, impl target, class, trait or describe block. */
  readonly container: string | null;
  /** Enclosing named scopes outermost first (inline modules, namespaces, classes). */
  readonly scope: readonly string[];
  readonly nameLine: number;
  /** Inside test code (a test file, a #[cfg(test)] module, a #[test] function). */
  readonly inTest: boolean;
}

export type OptionFramework =
  | 'clap-derive'
  | 'clap-builder'
  | 'clap-macro'
  | 'argparse'
  | 'click'
  | 'commander'
  | 'yargs'
  | 'node-parseargs'
  | 'meow'
  | 'arg'
  | 'go-flag'
  | 'go-switch'
  | 'go-struct-tag'
  | 'oclif'
  | 'typer'
  /** A member of the object a parser made from the raw arguments (`minimist(process.argv.slice(2)).cors`): no declaration, the read is the first word on the option. */
  | 'parsed-argv';

export interface OptionDeclaration extends Span {
  readonly framework: OptionFramework;
  /** Long names without leading dashes. */
  readonly longs: readonly string[];
  /** Single-character short names without the dash. */
  readonly shorts: readonly string[];
  /** The identifier the parsed value lands in (field, dest, variable), when known. */
  readonly carrier: string | null;
  readonly inTest: boolean;
}

/** How a configuration key is declared or read; earlier entries are stronger evidence. */
export const CONFIG_KEY_KINDS = ['schema-field', 'key-read', 'env-read', 'config-field', 'settings-read'] as const;
export type ConfigKeyKind = (typeof CONFIG_KEY_KINDS)[number];

export interface ConfigKeyDeclaration extends Span {
  readonly key: string;
  readonly kind: ConfigKeyKind;
  /** The identifier that carries the value after it is read (field name), when known. */
  readonly carrier: string | null;
  readonly inTest: boolean;
}

export interface FileFacts {
  readonly definitions: readonly Definition[];
  readonly options: readonly OptionDeclaration[];
  readonly configKeys: readonly ConfigKeyDeclaration[];
}

/**
 * A file's facts with its option and key declarations found on first use:
 * they take a pass over every call, member and subscript of the file, which a
 * search for a symbol's definition never needs (most of a cold resolution's
 * time on large files).
 */
export function lazyDeclarations(
  definitions: readonly Definition[],
  declarations: () => { readonly options: readonly OptionDeclaration[]; readonly configKeys: readonly ConfigKeyDeclaration[] },
): FileFacts {
  let found: ReturnType<typeof declarations> | null = null;
  const get = () => (found ??= declarations());
  return {
    definitions,
    get options() {
      return get().options;
    },
    get configKeys() {
      return get().configKeys;
    },
  };
}
