// Keeps env var values out of what the daemon stores from a runner's output.

/** Values this short are left alone: masking every "1" or "on" in an answer helps nobody. */
export const MIN_REDACTED_LENGTH = 4;
export const REDACTED = '[redacted]';

/**
 * Masks a turn's env var values in what its command printed. Each value is masked as it is,
 * without surrounding whitespace (a PEM key ends in a newline that `$(...)` drops), and line by
 * line when it has several. Output kept
 * only in part is cut where no value crosses the cut, so no piece of a value is left standing.
 */
export class Redactor {
  /** longest first, so a value that contains another is masked whole */
  private readonly forms: readonly string[];
  /** how far past a cut a value crossing it can reach, in UTF-8 bytes */
  readonly margin: number;

  constructor(values: readonly string[]) {
    const forms = new Set<string>();
    for (const v of values) {
      forms.add(v);
      forms.add(v.trim());
      // Each line of a multi-line value too, as GitHub Actions masks secrets: a command may print
      // one line of a key, or all of them with other line endings.
      if (/[\r\n]/.test(v)) for (const line of v.split(/\r?\n|\r/)) forms.add(line.trim());
    }
    this.forms = [...forms].filter((v) => v.length >= MIN_REDACTED_LENGTH).sort((a, b) => b.length - a.length);
    this.margin = this.forms.reduce((n, v) => Math.max(n, Buffer.byteLength(v)), 0);
  }

  mask(text: string): string {
    let out = text;
    for (const v of this.forms) out = out.split(v).join(REDACTED);
    return out;
  }

  /** At most the first `maxBytes` of `text`, masked; a value crossing the cut is masked whole. */
  head(text: string, maxBytes: number): string {
    const cut = headBytes(text, maxBytes).length;
    const at = this.cutBefore(text, cut);
    return this.mask(text.slice(0, at)) + (at < cut ? REDACTED : '');
  }

  /** At most the last `maxBytes` of `text`, masked; a value crossing the cut is kept whole. */
  tail(text: string, maxBytes: number): string {
    const bytes = Buffer.from(text);
    if (bytes.length <= maxBytes) return this.mask(text);
    const from = text.length - bytes.subarray(bytes.length - maxBytes).toString('utf8').replace(/^\uFFFD/, '').length;
    return this.mask(text.slice(this.cutBefore(text, from)));
  }

  /** `at`, moved back to the start of any value occurrence that crosses it. */
  private cutBefore(text: string, at: number): number {
    let cut = at;
    for (let moved = true; moved; ) {
      moved = false;
      for (const v of this.forms) {
        const start = text.indexOf(v, Math.max(0, cut - v.length + 1));
        if (start !== -1 && start < cut && start + v.length > cut) {
          cut = start;
          moved = true;
        }
      }
    }
    return cut;
  }
}

/** The first `maxBytes` bytes of `text` (a character cut in two is dropped). */
function headBytes(text: string, maxBytes: number): string {
  const buf = Buffer.from(text);
  return buf.length <= maxBytes ? text : buf.subarray(0, maxBytes).toString('utf8').replace(/\uFFFD$/, '');
}
