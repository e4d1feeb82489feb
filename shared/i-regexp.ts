// I-Regexp (RFC 9485), the pattern language of JSONPath's match() and search() (RFC 9535 §2.4.6,
// 2.4.7): checked against its grammar and written out in RE2's syntax. A pattern outside it
// (`\d`, `(?i)`, a lazy `*?`, a backreference) makes those functions false rather than meaning
// what another regex dialect would make of it, and `^` and `$` are ordinary characters, as the
// grammar has no anchors: match() is anchored by definition, search() never is.

/** The pattern in RE2 syntax, or null when it is not an I-Regexp. */
export function iRegexpToRe2(pattern: string): string | null {
  const parser = new Parser([...pattern]);
  try {
    const out = parser.regexp();
    return parser.done() ? out : null;
  } catch (err) {
    if (err instanceof NotIRegexp) return null;
    throw err;
  }
}

class NotIRegexp extends Error {}

/** Code points a NormalChar may not be: the metacharacters `( ) * + . ? [ \ ] { | }`. */
const META = new Set(['(', ')', '*', '+', '.', '?', '[', '\\', ']', '{', '|', '}']);
/** What follows a `\` in a SingleCharEsc, and the character it stands for in RE2 (escaped again). */
const SINGLE_ESCAPES = new Set(['(', ')', '*', '+', '-', '.', '?', '[', '\\', ']', '^', 'n', 'r', 't', '{', '|', '}']);
/** Unicode general categories I-Regexp names (IsCategory): a letter, with an optional second. */
const CATEGORIES: Record<string, string> = { L: 'lmotu', M: 'cen', N: 'dlo', P: 'cdefios', Z: 'lps', S: 'ckmo', C: 'cfno' };

class Parser {
  private i = 0;

  constructor(private readonly cps: string[]) {}

  done(): boolean {
    return this.i === this.cps.length;
  }

  /** i-regexp = branch *( "|" branch ) */
  regexp(): string {
    let out = this.branch();
    while (this.peek() === '|') {
      this.i++;
      out += '|' + this.branch();
    }
    return out;
  }

  /** branch = *piece; piece = atom [ quantifier ] */
  private branch(): string {
    let out = '';
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) {
      out += this.atom() + this.quantifier();
    }
    return out;
  }

  private quantifier(): string {
    const c = this.peek();
    if (c === '*' || c === '+' || c === '?') {
      this.i++;
      return c;
    }
    if (c !== '{') return '';
    this.i++;
    const min = this.digits();
    let out = `{${min}`;
    if (this.peek() === ',') {
      this.i++;
      out += ',';
      if (this.peek() !== '}') out += this.digits();
    }
    this.expect('}');
    return `${out}}`;
  }

  private digits(): string {
    let out = '';
    while (/^[0-9]$/.test(this.peek() ?? '')) out += this.cps[this.i++];
    if (out === '') throw new NotIRegexp();
    return out;
  }

  /** atom = NormalChar / charClass / ( "(" i-regexp ")" ) */
  private atom(): string {
    const c = this.next();
    if (c === '(') {
      // A group of its own: no (?:...), (?=...) or inline flags in I-Regexp.
      const inner = this.regexp();
      this.expect(')');
      return `(?:${inner})`;
    }
    // I-Regexp's `.` is any character but \n and \r (RFC 9485 §5.3); RE2's only leaves out \n.
    if (c === '.') return '[^\\n\\r]';
    if (c === '[') return this.classExpr();
    if (c === '\\') return this.escape();
    if (META.has(c) || isSurrogate(c)) throw new NotIRegexp();
    return literal(c);
  }

  /** After `\`: SingleCharEsc, or \p{...} / \P{...} (catEsc, complEsc). */
  private escape(): string {
    const c = this.next();
    if (SINGLE_ESCAPES.has(c)) return `\\${c}`;
    if (c !== 'p' && c !== 'P') throw new NotIRegexp();
    this.expect('{');
    const major = this.next();
    const minors = CATEGORIES[major];
    if (minors === undefined) throw new NotIRegexp();
    let category = major;
    if (this.peek() !== '}') {
      const minor = this.next();
      if (!minors.includes(minor)) throw new NotIRegexp();
      category += minor;
    }
    this.expect('}');
    return `\\${c}{${category}}`;
  }

  /** charClassExpr = "[" [ "^" ] ( "-" / CCE1 ) *CCE1 [ "-" ] "]" (after the "["). */
  private classExpr(): string {
    let out = '[';
    if (this.peek() === '^') {
      this.i++;
      out += '^';
    }
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) throw new NotIRegexp();
      if (c === ']' && !first) break;
      if (c === '-') {
        // Only first, or last before "]".
        this.i++;
        if (!first && this.peek() !== ']') throw new NotIRegexp();
        out += '\\-';
      } else {
        out += this.classItem();
      }
      first = false;
    }
    this.i++;
    return `${out}]`;
  }

  /** CCE1 = ( CCchar [ "-" CCchar ] ) / charClassEsc */
  private classItem(): string {
    if (this.peek() === '\\' && (this.cps[this.i + 1] === 'p' || this.cps[this.i + 1] === 'P')) {
      this.i++;
      return this.escape();
    }
    const from = this.classChar();
    if (this.peek() !== '-' || this.cps[this.i + 1] === ']') return from.re2;
    this.i++;
    const to = this.classChar();
    if (from.cp > to.cp) throw new NotIRegexp();
    return `${from.re2}-${to.re2}`;
  }

  /** CCchar: any character but `- [ \ ]`, or a SingleCharEsc; with its code point for ranges. */
  private classChar(): { re2: string; cp: number } {
    const c = this.next();
    if (c === '\\') {
      const e = this.next();
      if (!SINGLE_ESCAPES.has(e)) throw new NotIRegexp();
      const cp = e === 'n' ? 10 : e === 'r' ? 13 : e === 't' ? 9 : e.codePointAt(0)!;
      return { re2: `\\${e}`, cp };
    }
    if (c === '-' || c === '[' || c === ']' || isSurrogate(c)) throw new NotIRegexp();
    return { re2: classLiteral(c), cp: c.codePointAt(0)! };
  }

  private peek(): string | undefined {
    return this.cps[this.i];
  }

  private next(): string {
    const c = this.cps[this.i++];
    if (c === undefined) throw new NotIRegexp();
    return c;
  }

  private expect(c: string): void {
    if (this.next() !== c) throw new NotIRegexp();
  }
}

/** A lone UTF-16 surrogate: the grammar leaves those code points out. */
const isSurrogate = (c: string) => c.length === 1 && c.charCodeAt(0) >= 0xd800 && c.charCodeAt(0) <= 0xdfff;

/** An ordinary character, escaped where RE2 would read it as syntax (`^`, `$`). */
const literal = (c: string) => (c === '^' || c === '$' ? `\\${c}` : c);

/** An ordinary character inside a class, escaped where RE2 would read it as syntax there. */
const classLiteral = (c: string) => (c === '^' ? '\\^' : c);
