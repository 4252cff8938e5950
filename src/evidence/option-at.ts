// The command-line option a located declaration also makes. A configuration
// key declared as an option's environment fallback — clap's
// `#[arg(long = "port", env = "APP_PORT")]`, urfave/cli's `EnvVars`, oclif's
// `env:`, kong's `env:"…"` tag — reaches the program as that option's value:
// its flow is the option's, and tests set it on the command line.
import type { Location } from '../core/contracts.js';
import type { AnalysisContext } from './context.js';
import type { OptionDeclaration } from './languages/index.js';

/** The long-named, non-test option whose declaration overlaps `at`, if any. */
export function optionDeclaredAt(ctx: AnalysisContext, at: Location | null): OptionDeclaration | null {
  if (!at) return null;
  return (ctx.facts(at.path)?.options ?? []).find((o) => !o.inTest && o.longs.length > 0 && o.startLine <= at.end_line && at.start_line <= o.endLine) ?? null;
}
