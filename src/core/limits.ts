// Every bound the product enforces, in one place. Other modules import these
// instead of repeating numbers, so the published schemas, the validators and
// the docs cannot drift apart.

export const MCP = {
  maxLineBytes: 65_536,
  maxQueuedLines: 8,
  maxArgumentsBytes: 16_384,
  supportedProtocolVersions: ['2025-06-18', '2024-11-05'] as const,
  latestProtocolVersion: '2025-06-18',
  legacyProtocolVersion: '2024-11-05',
  maxContextChars: 65_536,
  progressMinIntervalMs: 250,
} as const;

export const NEED = {
  subjectNameMaxBytes: 512,
  taskMaxBytes: 8_192,
  maxRequired: 3,
  maxPreferred: 3,
  worldStringMaxBytes: 256,
  maxClaimIds: 16,
  maxArtifactIds: 8,
} as const;

export const LEDGER = {
  defaultMaxNeeds: 3,
  defaultMaxWorkers: 3,
  minLimit: 1,
  maxLimit: 8,
} as const;

export const EVIDENCE = {
  pathMaxBytes: 1_024,
  symbolMaxBytes: 512,
  descriptionMaxBytes: 1_000,
  gapMaxBytes: 512,
  maxGaps: 8,
  maxLocations: 8,
  maxLocationLines: 200,
  maxFlowSteps: 16,
  minArgv: 2,
  maxArgv: 16,
  argMaxBytes: 512,
  maxEvidencePaths: 8,
} as const;

export const RESOLVER = {
  maxObligations: 16,
  maxCandidates: 64,
  maxArtifactsPerPlan: 8,
  maxClaimsPerArtifact: 32,
  defaultTokenBudget: 1_200,
  bytesPerToken: 4,
} as const;

export const CHANGE = {
  taskMaxBytes: 8_192,
  minCriteria: 1,
  maxCriteria: 8,
  criterionMaxBytes: 2_048,
  minAllowedPaths: 1,
  maxAllowedPaths: 16,
  maxArtifactIds: 16,
  maxClaimIds: 32,
  maxConstraints: 8,
  maxChangedFiles: 16,
  maxBeforeAfterBytes: 512 * 1024,
  maxAfterBytes: 1024 * 1024,
  maxTestPlans: 4,
  protectedSegments: ['.git', '.needle', '.codegraph', '.cache', 'target', 'node_modules', 'dist', 'build'] as const,
} as const;

export const PROFILE = {
  idPattern: /^[a-z0-9][a-z0-9._-]{0,63}$/,
  modelPattern: /^[A-Za-z0-9._-]{1,64}$/,
  credentialPrefixes: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_', 'sk-', 'sk_', 'xoxb-', 'xoxp-', 'xoxa-', 'xoxs-', 'akia', 'aiza', 'glpat-', 'pk_', 'rk_'] as const,
} as const;
