/**
 * Closed-form constants for answer comparison: `\sqrt{8}` and `2\sqrt{2}`, `\frac{5}{\sqrt{2}}` and
 * `\frac{5\sqrt{2}}{2}`, `\frac{\pi}{2}` and `\frac{1}{2}\pi`, `\sqrt[3]{27}` and `3` are the same number. The
 * rational evaluator (rational.ts) decides everything without roots or π exactly; this module handles what it
 * cannot, by evaluating both sides in double precision and comparing to 1e-9 relative.
 *
 * Deliberately narrow, so that it cannot make a wrong answer right: integers only (a decimal approximation such as
 * `1.4142135` is not the exact answer `\sqrt{2}`), exponents up to 64 in size, and for constants at least one root,
 * π or fractional power somewhere in the pair. Single letters are variables: two expressions in the same
 * variables are equal when they agree at fixed points, negative ones included (up to four variables, at least
 * three points where both are defined); no functions (sin, log, …).
 */

type Token = { kind: "num"; value: number } | { kind: "cmd"; name: string } | { kind: "sym"; c: string } | { kind: "var"; name: string };

/** Single letters read as variables; `e` and `i` are left out (Euler's number, the imaginary unit). */
const VARIABLE = /^[a-df-hj-zA-Z]$/;

const MAX_CHARS = 200;
const MAX_EXPONENT = 64;
const COMMANDS = new Set(["frac", "sqrt", "pi", "cdot", "times", "div", "left", "right"]);

function tokenize(s: string): Token[] | undefined {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === " ") {
      i++;
    } else if (/[0-9]/.test(c)) {
      let j = i;
      while (j < s.length && /[0-9]/.test(s[j]!)) j++;
      if (s[j] === ".") return undefined; // decimals: not an exact closed form
      out.push({ kind: "num", value: Number(s.slice(i, j)) });
      i = j;
    } else if (c === "\\") {
      let j = i + 1;
      while (j < s.length && /[A-Za-z]/.test(s[j]!)) j++;
      const name = s.slice(i + 1, j);
      if (!COMMANDS.has(name)) return undefined;
      // \left( and \right) are just brackets.
      if (name !== "left" && name !== "right") out.push({ kind: "cmd", name: name === "times" || name === "cdot" ? "*" : name === "div" ? "/" : name });
      i = j;
    } else if ("+-*/^()[]{}".includes(c)) {
      out.push({ kind: "sym", c });
      i++;
    } else if (VARIABLE.test(c)) {
      out.push({ kind: "var", name: c }); // `xy` is x·y, as in algebra
      i++;
    } else {
      return undefined; // letters, commas, anything else: not a constant
    }
  }
  return out;
}

class Parser {
  private i = 0;
  constructor(
    private readonly t: Token[],
    private readonly env: ReadonlyMap<string, number>,
  ) {}

  parse(): number | undefined {
    const v = this.expr();
    return this.i === this.t.length ? v : undefined;
  }

  private peek(): Token | undefined {
    return this.t[this.i];
  }

  private isSym(c: string): boolean {
    const t = this.peek();
    return (t?.kind === "sym" && t.c === c) || (t?.kind === "cmd" && t.name === c);
  }

  private expect(c: string): void {
    if (!this.isSym(c)) throw new SyntaxError(`expected ${c}`);
    this.i++;
  }

  private expr(): number {
    let v = this.term();
    for (;;) {
      if (this.isSym("+")) {
        this.i++;
        v += this.term();
      } else if (this.isSym("-")) {
        this.i++;
        v -= this.term();
      } else return v;
    }
  }

  /** Products, including implicit ones (`2\sqrt{2}`, `3\pi`, `2(1+\sqrt{3})`). */
  private term(): number {
    let v = this.unary();
    for (;;) {
      if (this.isSym("*")) {
        this.i++;
        v *= this.unary();
      } else if (this.isSym("/")) {
        this.i++;
        v /= this.unary();
      } else if (this.startsAtom()) {
        v *= this.power();
      } else return v;
    }
  }

  private unary(): number {
    if (this.isSym("-")) {
      this.i++;
      return -this.unary();
    }
    if (this.isSym("+")) {
      this.i++;
      return this.unary();
    }
    return this.power();
  }

  private power(): number {
    const base = this.atom();
    if (!this.isSym("^")) return base;
    this.i++;
    const exponent = this.isSym("-") ? (this.i++, -this.atom()) : this.atom();
    if (Math.abs(exponent) > MAX_EXPONENT) throw new RangeError("exponent too large");
    return base ** exponent;
  }

  private startsAtom(): boolean {
    const t = this.peek();
    if (!t) return false;
    if (t.kind === "num" || t.kind === "var") return true;
    if (t.kind === "cmd") return t.name === "frac" || t.name === "sqrt" || t.name === "pi";
    return t.c === "(" || t.c === "{";
  }

  private group(): number {
    if (this.isSym("{")) {
      this.i++;
      const v = this.expr();
      this.expect("}");
      return v;
    }
    // `\frac12`, `\sqrt2`: a single digit or command stands for its group.
    const t = this.peek();
    if (t?.kind === "num") {
      this.i++;
      return t.value;
    }
    return this.atom();
  }

  private atom(): number {
    const t = this.peek();
    if (!t) throw new SyntaxError("unexpected end");
    this.i++;
    if (t.kind === "num") return t.value;
    if (t.kind === "var") {
      const v = this.env.get(t.name);
      if (v === undefined) throw new SyntaxError(`unbound ${t.name}`);
      return v;
    }
    if (t.kind === "cmd") {
      if (t.name === "pi") return Math.PI;
      if (t.name === "frac") {
        const n = this.group();
        return n / this.group();
      }
      if (t.name === "sqrt") {
        let index = 2;
        if (this.isSym("[")) {
          this.i++;
          index = this.expr();
          this.expect("]");
          if (!Number.isInteger(index) || index < 2 || index > MAX_EXPONENT) throw new RangeError("bad root index");
        }
        const x = this.group();
        if (x < 0) {
          if (index % 2 === 0) throw new RangeError("even root of a negative number");
          return -(Math.abs(x) ** (1 / index));
        }
        return index === 2 ? Math.sqrt(x) : x ** (1 / index);
      }
      throw new SyntaxError(`unexpected \\${t.name}`);
    }
    if (t.c === "(" || t.c === "{") {
      const v = this.expr();
      this.expect(t.c === "(" ? ")" : "}");
      return v;
    }
    throw new SyntaxError(`unexpected ${t.c}`);
  }
}

function evaluateTokens(tokens: Token[], env: ReadonlyMap<string, number>): number | undefined {
  try {
    const v = new Parser(tokens, env).parse();
    return v !== undefined && Number.isFinite(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function variablesOf(tokens: Token[]): string[] {
  return [...new Set(tokens.flatMap((t) => (t.kind === "var" ? [t.name] : [])))].sort();
}

/**
 * Points at which two expressions in the same variables are compared: fixed, irrational-looking values (so an
 * identity check cannot be fooled by small integers), different for each variable and each point.
 */
const POINTS = [
  [0.7371, 1.3113, 2.1719, 0.4127],
  [1.9293, 0.5381, 1.2467, 2.6033],
  [2.4409, 1.7753, 0.8861, 1.1573],
  [-0.6379, -1.4471, 0.9533, -2.2087],
  [-1.8117, 0.6929, -0.5443, 1.6871],
];

/** Whether a normalised answer has something only this module can evaluate (a root, π or a fractional power). */
function irrationalMarker(s: string): boolean {
  return /\\sqrt|\\pi|\^\{?\s*(?:-\s*)?\\frac|\^\{[^{}]*\/[^{}]*\}/.test(s);
}

const close = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));

/**
 * Equal as closed-form constants, or as expressions in the same variables that agree at every test point
 * (`x+1` = `1+x`, `(x+1)^2` = `x^2+2x+1`); false whenever either side is not something this module reads. A bare
 * run of letters is a word, not a product (`no` is not `on`).
 */
export function closedFormsEqual(a: string, b: string): boolean {
  if (a.length > MAX_CHARS || b.length > MAX_CHARS) return false;
  const ta = tokenize(a);
  const tb = tokenize(b);
  if (!ta || !tb || ta.length === 0 || tb.length === 0) return false;
  const va = variablesOf(ta);
  const vb = variablesOf(tb);
  if (va.join() !== vb.join()) return false;
  if (va.length === 0) {
    if (!irrationalMarker(a) && !irrationalMarker(b)) return false;
    const x = evaluateTokens(ta, new Map());
    const y = evaluateTokens(tb, new Map());
    return x !== undefined && y !== undefined && close(x, y);
  }
  if (va.length > POINTS[0]!.length || ta.every((t) => t.kind === "var") || tb.every((t) => t.kind === "var")) return false;
  // Where both sides are undefined (√x at x < 0) a point says nothing; where only one is, they differ.
  let agreed = 0;
  for (const point of POINTS) {
    const env = new Map(va.map((name, k) => [name, point[k]!]));
    const x = evaluateTokens(ta, env);
    const y = evaluateTokens(tb, env);
    if (x === undefined && y === undefined) continue;
    if (x === undefined || y === undefined || !close(x, y)) return false;
    agreed++;
  }
  return agreed >= 3;
}
