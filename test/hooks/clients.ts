// The client drivers and mock model servers live in bench/clients.ts: the
// benchmark that measures what the model receives drives the same clients.
export * from '../../bench/clients.js';

/** A CODEX_HOME config.toml that sends every model request to the loopback Responses mock on `port`. */
export function mockCodexConfig(port: number): string {
  return [
    'model = "mock-model"',
    'model_provider = "mock"',
    '[features]',
    'plugins = false',
    '[model_providers.mock]',
    'name = "mock"',
    `base_url = "http://127.0.0.1:${port}/v1"`,
    'wire_api = "responses"',
    'requires_openai_auth = false',
    '',
  ].join('\n');
}
