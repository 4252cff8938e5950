// How a Codex evidence worker is launched and configured (SPEC §7,
// reference/workers.md §8): a run-local CODEX_HOME holding only the config we
// generate, process-level switches that keep the binary offline and sealed,
// and a thread that can only read its checkout.
import type { ExplorerConfig } from '../../core/profile.js';

export type CodexExplorer = Extract<ExplorerConfig, { adapter: 'codex' }>;

const tomlString = (s: string): string => JSON.stringify(s);

function inlineTable(values: Record<string, string>): string {
  return `{ ${Object.entries(values).map(([k, v]) => `${k} = ${tomlString(v)}`).join(', ')} }`;
}

/** config.toml for the run-local CODEX_HOME: the model and, when configured, its provider. */
export function codexConfigToml(cfg: CodexExplorer): string {
  const lines = [`model = ${tomlString(cfg.model)}`];
  if (cfg.reasoning_effort) lines.push(`model_reasoning_effort = ${tomlString(cfg.reasoning_effort)}`);
  if (cfg.provider) {
    lines.push(`model_provider = ${tomlString(cfg.provider.name)}`, '', `[model_providers.${tomlString(cfg.provider.name)}]`);
    lines.push(`name = ${tomlString(cfg.provider.name)}`, `base_url = ${tomlString(cfg.provider.base_url)}`, 'wire_api = "responses"', 'requires_openai_auth = false');
    if (cfg.provider.env_key) lines.push(`env_key = ${tomlString(cfg.provider.env_key)}`);
    // Needle owns retries (repair turn, ladder); the binary's own retries only stretch deadlines.
    lines.push('request_max_retries = 0', 'stream_max_retries = 0');
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Process-level overrides. `features.plugins=false` must be given here (in the
 * thread config it does not stop the plugin sync that reaches github.com);
 * the shell policy makes the model's commands inherit nothing but `set`.
 */
export function appServerArgv(exe: string, shellEnv: Record<string, string>): string[] {
  const overrides = [
    'features.plugins=false',
    'features.hooks=false',
    'features.apps=false',
    'features.multi_agent=false',
    'features.shell_snapshot=false',
    'analytics.enabled=false',
    'web_search="disabled"',
    'project_doc_max_bytes=0',
    'mcp_servers={}',
    'allow_login_shell=false',
    'shell_environment_policy.inherit="none"',
    'shell_environment_policy.ignore_default_excludes=false',
    `shell_environment_policy.set=${inlineTable(shellEnv)}`,
  ];
  return [exe, 'app-server', '--strict-config', '--listen', 'stdio://', ...overrides.flatMap((o) => ['-c', o])];
}

export function threadStartParams(cfg: CodexExplorer, checkout: string, developerInstructions: string, shellEnv: Record<string, string>): Record<string, unknown> {
  return {
    model: cfg.model,
    cwd: checkout,
    approvalPolicy: 'on-request',
    approvalsReviewer: 'user',
    sandbox: 'read-only',
    developerInstructions,
    ephemeral: true,
    dynamicTools: [],
    runtimeWorkspaceRoots: [checkout],
    config: {
      web_search: 'disabled',
      // Shell snapshots (CODEX_HOME/shell_snapshots/<thread>.sh) hold the app
      // server's exported environment, provider key included, and the model
      // can read them; the thread config overrides a process-level -c, so the
      // switch must be here.
      features: { hooks: false, plugins: false, apps: false, multi_agent: false, shell_snapshot: false },
      mcp_servers: {},
      project_doc_max_bytes: 0,
      project_doc_fallback_filenames: [],
      allow_login_shell: false,
      ...(cfg.reasoning_effort ? { model_reasoning_effort: cfg.reasoning_effort } : {}),
      shell_environment_policy: { inherit: 'none', set: shellEnv },
    },
  };
}
