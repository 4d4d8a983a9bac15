// Variable substitution in instruction arguments, as a POSIX shell reads a word: quotes group and
// are removed, the escape token takes the next character literally, and `$var`, `${var}`,
// `${var:-word}`, `${var:+word}`, `${var?msg}` and `${var:?msg}` are replaced from the build's
// environment (ENV and ARG values). Only the instructions that take files, names and metadata
// are expanded this way; RUN, CMD and ENTRYPOINT are left for the container's own shell.
import { InvalidParameterError } from '../../api/errors';
import type { EscapeToken } from './svcfile-parser';

const END = '';

class Words {
  readonly list: string[] = [];
  private word = '';
  private inWord = false;

  /** A character that splits words when it is whitespace (from an unquoted expansion or text). */
  add(ch: string): void {
    if (/\s/.test(ch)) {
      if (this.inWord && this.word !== '') {
        this.list.push(this.word);
        this.word = '';
        this.inWord = false;
      }
    } else this.addRaw(ch);
  }

  /** Quoted or escaped text: never splits. */
  addRaw(text: string): void {
    this.word += text;
    this.inWord = true;
  }

  addExpansion(text: string): void {
    for (const ch of text) this.add(ch);
  }

  finish(): string[] {
    if (this.word !== '') this.list.push(this.word);
    this.word = '';
    this.inWord = false;
    return this.list;
  }
}

class Scanner {
  private pos = 0;
  private readonly chars: string[];

  constructor(text: string) {
    this.chars = [...text];
  }

  peek(): string {
    return this.chars[this.pos] ?? END;
  }

  next(): string {
    return this.chars[this.pos++] ?? END;
  }
}

const specialParameters = new Set(['@', '*', '#', '?', '-', '$', '!', '0']);

class WordExpansion {
  private readonly scanner: Scanner;

  constructor(
    text: string,
    private readonly env: ReadonlyMap<string, string>,
    private readonly escape: EscapeToken,
  ) {
    this.scanner = new Scanner(text);
  }

  /** Reads up to `stop` (consumed), or to the end when `stop` is END. */
  until(stop: string): { word: string; words: string[] } {
    const s = this.scanner;
    let word = '';
    const words = new Words();
    while (s.peek() !== END) {
      const ch = s.peek();
      if (stop !== END && ch === stop) {
        s.next();
        return { word, words: words.finish() };
      }
      if (ch === "'" || ch === '"') {
        const quoted = ch === "'" ? this.singleQuoted() : this.doubleQuoted();
        word += quoted;
        words.addRaw(quoted);
      } else if (ch === '$') {
        const value = this.dollar();
        word += value;
        words.addExpansion(value);
      } else {
        let c = s.next();
        if (c === this.escape) {
          c = s.next();
          if (c === END) break;
          words.addRaw(c);
        } else words.add(c);
        word += c;
      }
    }
    if (stop !== END) throw new Error(`unexpected end of statement while looking for matching ${stop}`);
    return { word, words: words.finish() };
  }

  private singleQuoted(): string {
    const s = this.scanner;
    s.next();
    let out = '';
    for (;;) {
      const ch = s.next();
      if (ch === END) throw new Error('unexpected end of statement while looking for matching single-quote');
      if (ch === "'") return out;
      out += ch;
    }
  }

  private doubleQuoted(): string {
    const s = this.scanner;
    s.next();
    let out = '';
    for (;;) {
      const ch = s.peek();
      if (ch === END) throw new Error('unexpected end of statement while looking for matching double-quote');
      if (ch === '"') {
        s.next();
        return out;
      }
      if (ch === '$') {
        out += this.dollar();
        continue;
      }
      let c = s.next();
      if (c === this.escape) {
        const after = s.peek();
        if (after === END) continue;
        if (after === '"' || after === '$' || after === this.escape) c = s.next();
      }
      out += c;
    }
  }

  private name(): string {
    const s = this.scanner;
    let name = '';
    while (s.peek() !== END) {
      const ch = s.peek();
      if (name === '' && /\d/.test(ch)) {
        while (/\d/.test(s.peek())) name += s.next();
        return name;
      }
      if (name === '' && specialParameters.has(ch)) return s.next();
      if (!/[\p{L}\p{N}_]/u.test(ch)) break;
      name += s.next();
    }
    return name;
  }

  private dollar(): string {
    const s = this.scanner;
    s.next();
    if (s.peek() !== '{') {
      const name = this.name();
      return name === '' ? '$' : (this.env.get(name) ?? '');
    }
    s.next();
    const first = s.peek();
    if (first === END) throw new Error("syntax error: missing '}'");
    if (first === '{' || first === '}' || first === ':') throw new Error('syntax error: bad substitution');
    const name = this.name();
    const value = this.env.get(name);
    const op = s.next();
    if (op === END) throw new Error("syntax error: missing '}'");
    if (op === '}') return value ?? '';
    if (op === '?') {
      const message = this.operand();
      if (value === undefined) throw new Error(`${name}: ${message || 'is not allowed to be unset'}`);
      return value;
    }
    if (op !== ':') throw new Error("missing ':' in substitution");
    const modifier = s.next();
    const word = this.operand();
    switch (modifier) {
      case '-':
        return value ? value : word;
      case '+':
        return value ? word : '';
      case '?':
        if (value === undefined) throw new Error(`${name}: ${word || 'is not allowed to be unset'}`);
        if (value === '') throw new Error(`${name}: ${word || 'is not allowed to be empty'}`);
        return value;
      default:
        throw new Error(`unsupported modifier (${modifier}) in substitution`);
    }
  }

  /** The word after an operator, up to the closing brace. */
  private operand(): string {
    try {
      return this.until('}').word;
    } catch (err) {
      if (this.scanner.peek() === END) throw new Error("syntax error: missing '}'", { cause: err });
      throw err;
    }
  }
}

/** The environment as a map; a later `KEY=value` wins, as it does in a container's. */
export function envMap(env: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of env) {
    const eq = entry.indexOf('=');
    if (eq < 0) map.set(entry, '');
    else map.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return map;
}

export class ShellLexer {
  constructor(readonly escape: EscapeToken = '\\') {}

  private run(word: string, env: ReadonlyMap<string, string>): { word: string; words: string[] } {
    try {
      return new WordExpansion(word, env, this.escape).until(END);
    } catch (err) {
      throw new InvalidParameterError(
        `failed to process ${JSON.stringify(word)}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
  }

  /** One word with its variables replaced and its quotes removed. */
  processWord(word: string, env: ReadonlyMap<string, string>): string {
    return this.run(word, env).word;
  }

  /** The same, split into words where unquoted whitespace remains (EXPOSE's `$PORTS`). */
  processWords(word: string, env: ReadonlyMap<string, string>): string[] {
    return this.run(word, env).words;
  }
}
