// The floor for a stdio round trip: a bare Node process that writes every
// line it reads straight back.
import { createInterface } from 'node:readline';

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => process.stdout.write(`${line}\n`));
