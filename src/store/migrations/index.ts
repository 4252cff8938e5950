// Ordered, additive migrations. Never edit an applied migration: add a new one.
import { foundation } from './001_foundation.js';
import { evidence } from './002_evidence.js';
import { workers } from './003_workers.js';
import { changes } from './004_changes.js';
import { negativeOutcomes } from './005_negative_outcomes.js';
import { teamCache } from './006_team_cache.js';
import { reportIndexes } from './007_report_indexes.js';
import { oneWorkerRunTable } from './008_one_worker_run_table.js';
import { applyOwner } from './009_apply_owner.js';

export interface Migration {
  readonly id: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [foundation, evidence, workers, changes, negativeOutcomes, teamCache, reportIndexes, oneWorkerRunTable, applyOwner];
