// Replaces one marked section of README.md with fresh benchmark results.
import { readFileSync, writeFileSync } from 'node:fs';

export function replaceSection(file: string, name: string, body: string): void {
  const open = `<!-- bench:${name} -->`;
  const close = `<!-- /bench:${name} -->`;
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start === -1 || end === -1 || end < start) throw new Error(`${file} has no ${open} … ${close} section`);
  writeFileSync(file, `${text.slice(0, start + open.length)}\n${body.trim()}\n${text.slice(end)}`);
}
