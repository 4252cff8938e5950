// Ordered, additive migrations. Never edit an applied migration: add a new one.
import { foundation } from './001_foundation.js';
import { evidence } from './002_evidence.js';
import { workers } from './003_workers.js';
import { changes } from './004_changes.js';
import { negativeOutcomes } from './005_negative_outcomes.js';
import { teamCache } from './006_team_cache.js';
import { reportIndexes } from './007_report_indexes.js';
import { evidenceGeneration } from './008_evidence_generation.js';
import { controlPlane } from './009_control_plane.js';
import { oneWorkerRunTable } from './010_one_worker_run_table.js';
import { applyOwner } from './011_apply_owner.js';

export interface Migration {
  readonly id: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  foundation,
  evidence,
  workers,
  changes,
  negativeOutcomes,
  teamCache,
  reportIndexes,
  evidenceGeneration,
  controlPlane,
  oneWorkerRunTable,
  applyOwner,
];
