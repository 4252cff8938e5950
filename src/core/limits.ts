// Every bound the product enforces, in one place. Other modules import these
// instead of repeating numbers, so the published schemas, the validators and
// the docs cannot drift apart.

export const MCP = {
  maxLineBytes: 65_536,
  maxQueuedLines: 8,
  maxArgumentsBytes: 16_384,
  /** Nesting bound of tools/call params (arguments and _meta), checked without recursion. */
  maxParamsDepth: 32,
  supportedProtocolVersions: ['2025-06-18', '2024-11-05'] as const,
  latestProtocolVersion: '2025-06-18',
  legacyProtocolVersion: '2024-11-05',
  maxContextBytes: 65_536,
  progressMinIntervalMs: 250,
  /** Bound of a resolution's `reason` text in a need_context result. */
  maxReasonBytes: 4_096,
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

export const HOOKS = {
  /** Bytes of hook JSON read from stdin; more is refused. */
  maxPayloadBytes: 1_048_576,
  /** Bytes of one `@@need … @@end` block, markers included. */
  maxBlockBytes: 16_384,
  /** Blocks honoured in one assistant message; later ones are ignored. */
  maxBlocksPerMessage: 3,
  /** Seconds the client allows each hook (written into its settings by `needle enable`). */
  sessionStartTimeoutSec: 10,
  stopTimeoutSec: 120,
  /** Seconds Codex waits for the MCP server to start (written into config.toml). */
  mcpStartupTimeoutSec: 30,
  /** The Stop hook answers this long before the client's own timeout. */
  stopMarginMs: 5_000,
} as const;

/** `needle status` asking `codex app-server` whether Codex trusts Needle's hooks. */
export const CODEX_TRUST = {
  /** Per request (initialize, hooks/list); past it the trust is reported unknown. */
  timeoutMs: 15_000,
} as const;

/**
 * Group commits of bookkeeping rows (store/bookkeeping.ts). While requests keep
 * arriving the rows wait, so that no commit sits between one answer and the
 * next request; other processes (the UI, `needle needs`) see them at most
 * this late, and a crash loses at most these rows (never a certificate).
 */
export const BOOKKEEPING = {
  /** A group is committed once no row was queued for this long. */
  idleMs: 25,
  /** ...and at the latest this long after its first row was queued. */
  maxDelayMs: 500,
  /** ...or at once when it holds this many writes. */
  maxWrites: 512,
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

export const WORKER = {
  /** Grace between SIGTERM and SIGKILL of a worker's process group. */
  killGraceMs: 1_500,
  /** Longest JSON-RPC line accepted from a worker process (the reference used 4 MiB). */
  maxRpcLineBytes: 4 * 1024 * 1024,
  /** Bound on captured stdout/stderr of a supervised command. */
  maxOutputBytes: 1024 * 1024,
  /** Bound on the agent's final message and on accumulated deltas. */
  maxFinalMessageBytes: 256 * 1024,
  defaultTimeoutMs: 180_000,
  initializeTimeoutMs: 15_000,
  threadStartTimeoutMs: 30_000,
  turnStartTimeoutMs: 30_000,
  /** How long a cancelled turn may take to acknowledge turn/interrupt before the group is killed. */
  interruptGraceMs: 1_000,
  /** Minimum budget left for the one repair turn. */
  minRepairMs: 1_000,
  maxCoveredEntries: 8,
  maxCoveredEntryBytes: 2_048,
  maxCoveredTotalBytes: 8_192,
  /** Bound on one diagnostic (turn error, stderr tail) kept for a run. */
  maxDiagnosticBytes: 4_096,
  /** Read-only inspection commands the approval broker may accept. */
  maxInspectionArgs: 16,
  probeTimeoutMs: 10_000,
} as const;

/** A server's full garbage collection after a worktree snapshot (cli/garbage.ts). */
export const SNAPSHOT_GC = {
  /**
   * Collected only when the process then holds more buffer memory than this:
   * a snapshot's git output, read into buffers, is its garbage. Measured
   * after a snapshot: 0.6 MB on 1 000 files (a collection there costs 7–10 ms
   * and its concurrent sweeping slowed the next hit), 5 MB on 50 000 (where
   * V8's own collection otherwise fell on the next hits).
   */
  minBufferBytes: 2 * 1024 * 1024,
} as const;

/** The static analyzer's thread in a server (workers/static-thread.ts). */
export const ANALYZER_THREAD = {
  /**
   * Started once the worktree watch knows its first snapshot and nothing
   * arrived on the connection for this long (mcp/quiet.ts), and no need runs
   * the analyzer in process: it competes neither with the watch's snapshot
   * (seconds on large repositories) nor with a client sending requests, and
   * it is ready for a first need asked after a think time.
   */
  quietMs: 500,
  /** Longest wait of the thread for the server to take note of a stage (normally well under 1 ms). */
  stageAckMs: 60_000,
} as const;

/**
 * The facts the analyzer thread extracts ahead of time (evidence/fact-index.ts).
 * Measured at ~0.7 s of the thread's CPU per MB of source (parse and
 * extraction), once per server: the bounds keep that to seconds on a large
 * repository; files past them are parsed when a resolution asks, as without
 * the index.
 */
export const FACT_INDEX = {
  maxFiles: 10_000,
  /** Source bytes parsed in all. */
  maxBytes: 8 * 1024 * 1024,
  /** Larger files are left to a resolution (one such parse is tens of ms the thread could not be interrupted in). */
  maxFileBytes: 256 * 1024,
} as const;

/**
 * The worktree's searchable text held by the analyzer thread
 * (evidence/worktree-texts.ts); over either bound its searches run git grep.
 */
export const WORKTREE_TEXTS = {
  /** Each need stats every searchable file: past this many, one git grep walk is cheaper. */
  maxFiles: 20_000,
  maxBytes: 32 * 1024 * 1024,
} as const;

/** Syntax trees the analyzer thread keeps between needs (evidence/tree-cache.ts). */
export const TREE_CACHE = {
  /** Source characters whose trees are held (their WASM memory is tens of times that). */
  maxSourceChars: 1_000_000,
} as const;

/** The shell that starts git for the analyzer thread (repo/git-helper.ts). */
export const GIT_HELPER = {
  /** Longest wait for the shell to come up; git is started directly when it does not. */
  startMs: 5_000,
  /** Poll interval while it comes up (only then). */
  pollMs: 1,
} as const;

// Verified changes (SPEC §14): run bounds and the sizes of what workers may report.
export const CHANGE_RUN = {
  defaultImplementerTimeoutMs: 900_000,
  defaultVerifierTimeoutMs: 600_000,
  testTimeoutMs: 300_000,
  maxWorkerOutputBytes: 1_048_576,
  maxReportBytes: 65_536,
  summaryMaxBytes: 4_096,
  evidenceMaxBytes: 2_048,
  maxResidualRisks: 8,
  residualRiskMaxBytes: 1_024,
  maxFindings: 16,
  findingMaxBytes: 2_048,
  maxContextItemBytes: 8_192,
  messageMaxBytes: 400,
  maxDiffBytes: 3 * 512 * 1024,
  /** Output kept per certified test run for the change page: its first and last halves of this many bytes. */
  testExcerptMaxBytes: 4_096,
  diffContextLines: 3,
} as const;

export const REPO = {
  /** Output cap for one git invocation (a 50k-file ls-files listing is ~3 MiB). */
  gitMaxOutputBytes: 256 * 1024 * 1024,
  /** Files larger than this are not copied into checkouts, and a checkout diff refuses them. */
  checkoutMaxFileBytes: 64 * 1024 * 1024,
  /** Longest git diagnostic kept in a RepoError message. */
  errorDetailMaxChars: 300,
  /** A checkout diff with more changed paths than this is refused whole (admission allows far fewer). */
  diffMaxChangedPaths: 1_000,
  /** Before plus after bytes a checkout diff may hold in memory. */
  diffMaxHeldBytes: 128 * 1024 * 1024,
} as const;

// Validators, certificates and the proof-gated cache (SPEC §8–§11).
export const EVIDENCE_STORE = {
  /** Files larger than this are never read by a validator nor certified as a dependency. */
  maxValidatedFileBytes: 2 * 1024 * 1024,
  /** A stat cache entry is trusted only when the file's mtime is older than its digest by this much (racy-git rule). */
  racyMtimeWindowMs: 2_000,
  /** Deadline handed to one worker run of the explorer ladder. */
  workerDeadlineMs: 600_000,
  /** Single-flight lease lifetime; a follower takes over after it (or at once when the owner pid is gone). */
  flightLeaseMs: 660_000,
  /** How often a follower re-reads the lease row of another process. */
  flightPollMs: 50,
  maxExcerptLines: 3,
  excerptLineMaxChars: 160,
  maxReasonBytes: 2_048,
  maxAmbiguousCandidates: 8,
  /** Certified negative outcomes examined per worker and lookup (newest first). */
  maxNegativeCandidates: 8,
  /** Reasons kept with one negative outcome (rejections, unresolved). */
  maxNegativeReasons: 16,
} as const;

export const FLOW_TRACE = {
  /** Occurrences of the carrier examined per trace; beyond it the flow is reported incomplete. */
  maxOccurrences: 256,
  /** Renamed carriers followed (one hop each). */
  maxHops: 12,
  /** Renamings followed one after another (parsed args → settings field → another struct's field). */
  maxHopDepth: 4,
  /** Call sites of a function returning the value whose results are followed. */
  maxCallers: 8,
  /** Occurrences of a renamed carrier examined; a name used more widely is too generic to follow. */
  maxHopOccurrences: 64,
  /** A step cites its whole statement up to this many lines; a longer one is cited by the occurrence's own line. */
  maxStatementLines: 12,
} as const;

export const TEST_FINDER = {
  /** Test files parsed per search, in path order. */
  maxCandidateFiles: 64,
  /** Depth of `mod` declarations followed from a Cargo test target's root file. */
  maxModuleDepth: 6,
  /**
   * Distinct `--options` a test's body spells from which it is taken for a listing of the program's
   * options (its `--help` output), which names the subject without passing it.
   */
  helpListingOptions: 10,
} as const;

export const STATIC_LOCATE = {
  /** Grep lines considered when discovering candidate files for one subject. */
  maxCandidateMatches: 5_000,
  /** Files parsed to find the defining construct of one subject. */
  maxCandidateFiles: 400,
  /** Supporting locations next to the primary one (EVIDENCE.maxLocations - 1). */
  maxSupporting: 7,
  /** Candidates listed when a subject is ambiguous. */
  maxAmbiguousCandidates: 8,
  /** Files parsed to rule out in-file test code while picking supporting locations. */
  maxSupportingFilesParsed: 64,
} as const;

export const STATIC_GO = {
  /**
   * A flag named through a constant (`BoolP(helpFlagName, …)`) is cited by its
   * enclosing function when that function is at most this long, since the call
   * line alone never spells the option.
   */
  maxConstFlagFunctionLines: 40,
} as const;
