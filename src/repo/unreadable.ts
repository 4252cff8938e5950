// Absent versus unreadable (issue 14 item 3). A repository file that does not
// exist may be reported as absent; one that exists but cannot be read (a
// permission error, a symbolic-link loop, an I/O error) must never be: taken
// for absent it could let a worker or a validator conclude a negative ("no
// such definition", "no such test target") that the bytes do not support.

/** The error codes that mean "nothing is there". */
const ABSENT = new Set(['ENOENT', 'ENOTDIR']);

export class UnreadableFileError extends Error {
  constructor(
    readonly path: string,
    readonly code: string,
  ) {
    super(`cannot read ${path} in the repository (${code}); it is not treated as absent — make it readable or remove it, then ask again`);
    this.name = 'UnreadableFileError';
  }
}

/** Null when `error` (from a stat or read of `path`) means the file is absent; otherwise throws an UnreadableFileError. */
export function absentOrThrow(error: unknown, path: string): null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code !== undefined && ABSENT.has(code)) return null;
  throw new UnreadableFileError(path, code ?? (error instanceof Error ? error.message : String(error)));
}
