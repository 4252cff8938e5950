// Composition point for the resolver a `needle mcp serve` session uses. Until
// the evidence resolver is wired in here, every session gets the honest
// bypass: nothing certified exists, so nothing is served as if it were.
import type { Engine } from '../core/resolution.js';
import { BypassEngine } from '../mcp/bypass-engine.js';
import type { FrozenSession } from '../mcp/freeze.js';

export function createEngine(session: FrozenSession): Engine {
  return new BypassEngine(
    session.cacheOnly
      ? 'cache-only session and no certified evidence covers this need; continue natively'
      : 'no certified evidence covers this need and no resolver is available in this build; continue natively',
  );
}
