// The README section the evidence benchmarks own. The shared writer
// replaces a marked section; this adds the empty markers at the end of the
// file the first time, so the first --write-readme works on any README.
import { readFileSync, writeFileSync } from 'node:fs';
import { replaceSection } from '../readme.js';

export const SECTION = 'evidence';

export function writeEvidenceSection(file: string, report: string): void {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(`<!-- bench:${SECTION} -->`)) {
    writeFileSync(file, `${text.replace(/\n*$/, '\n')}\n<!-- bench:${SECTION} -->\n<!-- /bench:${SECTION} -->\n`);
  }
  replaceSection(file, SECTION, report);
}
