// The first pass over an instructions file (a Svcfile, or its twin the Dockerfile): parser
// directives, comments, line continuations, and each instruction's arguments split the way its
// keyword wants them (a JSON array, whitespace-separated words, key=value pairs or the raw rest).
// Meaning is given to the words later (instructions.ts); variables are expanded at build time.
import { SvcfileError } from './svcfile-error';

export type EscapeToken = '\\' | '`';

export interface SvcfileNode {
  /** The keyword, lower-cased (`run`, `from`, ...). */
  keyword: string;
  /** The `--name=value` words that came before the arguments. */
  flags: string[];
  /** The arguments as the keyword's rule splits them (key, value, key, value for ENV and LABEL). */
  args: string[];
  /** The arguments were a JSON array (the exec form). */
  json: boolean;
  /** The instruction as written, continuations joined: what `Step N/M :` shows. */
  original: string;
  /** 1-based line numbers of its first and last physical line. */
  line: number;
  endLine: number;
  /** ONBUILD's trigger, parsed as an instruction of its own. */
  trigger?: SvcfileNode;
}

export interface ParsedSvcfile {
  nodes: SvcfileNode[];
  escape: EscapeToken;
  warnings: string[];
}

const directivePattern = /^#\s*([a-zA-Z][a-zA-Z0-9]*)\s*=\s*(.+?)\s*$/;
const knownDirectives = new Set(['escape', 'syntax']);
const whitespace = /[\t\v\f\r ]+/;

type SplitRule = (rest: string, escape: EscapeToken) => { args: string[]; json: boolean };

/** A JSON array of strings, or undefined when `rest` is not one (so the shell form applies). */
function jsonArray(rest: string): string[] | undefined {
  const text = rest.trimStart();
  if (!text.startsWith('[')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value)) return undefined;
  if (!value.every((v) => typeof v === 'string')) {
    throw new Error('when using JSON array syntax, arrays must be comprised of strings only');
  }
  return value as string[];
}

const rawString: SplitRule = (rest) => ({ args: rest === '' ? [] : [rest], json: false });

const spaceSeparated: SplitRule = (rest) => ({
  args: rest === '' ? [] : rest.split(whitespace),
  json: false,
});

const jsonOrRaw: SplitRule = (rest, escape) => {
  const list = jsonArray(rest);
  return list ? { args: list, json: true } : rawString(rest, escape);
};

const jsonOrWords: SplitRule = (rest, escape) => {
  const list = jsonArray(rest);
  return list ? { args: list, json: true } : spaceSeparated(rest, escape);
};

/**
 * Words separated by whitespace, quotes and escapes kept in the word (they are removed when the
 * word is expanded), as the key=value forms need.
 */
export function quotedWords(rest: string, escape: EscapeToken): string[] {
  const words: string[] = [];
  let word = '';
  let started = false;
  let quote: string | undefined;
  const chars = [...rest];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (quote) {
      if (ch === escape && quote !== "'") {
        if (i + 1 === chars.length) continue;
        word += ch + chars[++i];
        continue;
      }
      if (ch === quote) quote = undefined;
      word += ch;
      continue;
    }
    if (/\s/.test(ch)) {
      if (started) words.push(word);
      word = '';
      started = false;
      continue;
    }
    started = true;
    if (ch === "'" || ch === '"') quote = ch;
    if (ch === escape) {
      if (i + 1 === chars.length) continue;
      word += ch + chars[++i];
      continue;
    }
    word += ch;
  }
  if (started) words.push(word);
  return words;
}

function keyValues(keyword: string): SplitRule {
  return (rest, escape) => {
    const words = quotedWords(rest, escape);
    if (words.length === 0) return { args: [], json: false };
    if (!words[0].includes('=')) {
      // The old one-pair form: `ENV key the whole rest of the line`.
      const parts = rest.split(whitespace);
      if (parts.length < 2) throw new Error(`${keyword} must have two arguments`);
      const key = parts[0];
      return {
        args: [key, rest.slice(rest.indexOf(key) + key.length).replace(/^[\t\v\f\r ]+/, '')],
        json: false,
      };
    }
    const args: string[] = [];
    for (const w of words) {
      const eq = w.indexOf('=');
      if (eq < 0)
        throw new Error(
          `Syntax error - can't find = in ${JSON.stringify(w)}. Must be of the form: name=value`,
        );
      args.push(w.slice(0, eq), w.slice(eq + 1));
    }
    return { args, json: false };
  };
}

const healthcheckRule: SplitRule = (rest, escape) => {
  const m = /^(\S+)\s*([\s\S]*)$/.exec(rest);
  if (!m) return { args: [], json: false };
  const command = jsonOrRaw(m[2], escape);
  return { args: [m[1], ...command.args], json: command.json };
};

/** How each keyword's arguments are split; a keyword not here is unknown (reported later). */
const rules: Record<string, SplitRule> = {
  add: jsonOrWords,
  arg: (rest, escape) => ({ args: quotedWords(rest, escape), json: false }),
  cmd: jsonOrRaw,
  copy: jsonOrWords,
  entrypoint: jsonOrRaw,
  env: keyValues('ENV'),
  expose: spaceSeparated,
  from: spaceSeparated,
  healthcheck: healthcheckRule,
  label: keyValues('LABEL'),
  maintainer: rawString,
  run: jsonOrRaw,
  shell: jsonOrRaw,
  stopsignal: rawString,
  user: rawString,
  volume: jsonOrWords,
  workdir: rawString,
};

/**
 * Leading `--flag[=value]` words (quotes and backslashes honoured) and the rest of the line.
 * A bare `--` ends the flags.
 */
function splitFlags(text: string): { flags: string[]; rest: string } {
  const flags: string[] = [];
  let pos = 0;
  for (;;) {
    while (pos < text.length && /\s/.test(text[pos])) pos++;
    if (pos >= text.length || !text.startsWith('--', pos)) return { flags, rest: text.slice(pos) };
    let word = '';
    let quote: string | undefined;
    let end = pos;
    for (; end < text.length; end++) {
      const ch = text[end];
      if (!quote && /\s/.test(ch)) break;
      if (!quote && (ch === '"' || ch === "'")) {
        quote = ch;
        continue;
      }
      if (quote && ch === quote) {
        quote = undefined;
        continue;
      }
      if (ch === '\\' && end + 1 < text.length) {
        word += text[++end];
        continue;
      }
      word += ch;
    }
    pos = end;
    if (word === '--') return { flags, rest: text.slice(pos).trimStart() };
    flags.push(word);
  }
}

/** Parses one logical line into a node (`line` and `endLine` are set by the caller). */
export function parseInstructionLine(
  text: string,
  escape: EscapeToken,
): Omit<SvcfileNode, 'line' | 'endLine'> {
  const trimmed = text.trim();
  const m = /^(\S+)(?:[\t\v\f\r ]+([\s\S]*))?$/.exec(trimmed);
  const keyword = (m?.[1] ?? '').toLowerCase();
  const { flags, rest } = m?.[2] ? splitFlags(m[2]) : { flags: [], rest: '' };
  const args = rest.trim();
  if (keyword === 'onbuild') {
    const trigger = args === '' ? undefined : parseInstructionLine(args, escape);
    return {
      keyword,
      flags,
      args: trigger ? [trigger.keyword, ...trigger.args] : [],
      json: false,
      original: text,
      ...(trigger ? { trigger: { ...trigger, line: 0, endLine: 0 } } : {}),
    };
  }
  const rule = rules[keyword] ?? (() => ({ args: [], json: false }));
  return { keyword, flags, ...rule(args, escape), original: text };
}

/** Parses a whole instructions file; throws SvcfileError naming the line on a syntax error. */
export function parseSvcfile(source: string, fileName = 'Svcfile'): ParsedSvcfile {
  const lines = source
    .replace(/^\uFEFF/, '')
    .split('\n')
    .map((l) => l.replace(/\r$/, ''));
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  let escape: EscapeToken = '\\';
  let continuation = continuationPattern(escape);
  const seenDirectives = new Set<string>();
  let directivesDone = false;
  const nodes: SvcfileNode[] = [];
  const warnings: string[] = [];

  /** Parser directives are only read at the top of the file, before anything else. */
  const directive = (raw: string, lineNo: number) => {
    if (directivesDone) return;
    const m = directivePattern.exec(raw);
    const key = m?.[1].toLowerCase();
    if (!m || !key || !knownDirectives.has(key)) {
      directivesDone = true;
      return;
    }
    if (seenDirectives.has(key)) {
      throw new SvcfileError(fileName, lineNo, `only one ${key} parser directive can be used`);
    }
    seenDirectives.add(key);
    if (key === 'escape') {
      if (m[2] !== '\\' && m[2] !== '`') {
        throw new SvcfileError(fileName, lineNo, `invalid escape token '${m[2]}' does not match \` or \\`);
      }
      escape = m[2];
      continuation = continuationPattern(escape);
    }
  };
  const isComment = (raw: string) => raw.trimStart().startsWith('#');

  let i = 0;
  while (i < lines.length) {
    const lineNo = i + 1;
    const first = lines[i++].trimStart();
    directive(first, lineNo);
    const code = first.startsWith('#') ? '' : first;
    let [text, ends] = trimContinuation(code, continuation);
    if (ends && text === '') continue;
    let emptyContinuation = false;
    while (!ends && i < lines.length) {
      const raw = lines[i++];
      directive(raw, i);
      if (isComment(raw)) continue;
      if (raw.trim() === '') {
        emptyContinuation = true;
        continue;
      }
      const [more, done] = trimContinuation(raw, continuation);
      text += more;
      ends = done;
    }
    if (emptyContinuation) warnings.push(`[WARNING]: Empty continuation line found in:\n    ${text}`);
    let node: Omit<SvcfileNode, 'line' | 'endLine'>;
    try {
      node = parseInstructionLine(text, escape);
    } catch (err) {
      throw new SvcfileError(fileName, lineNo, (err as Error).message);
    }
    nodes.push({
      ...node,
      line: lineNo,
      endLine: i,
      ...(node.trigger ? { trigger: { ...node.trigger, line: lineNo, endLine: i } } : {}),
    });
  }
  if (nodes.length === 0) throw new SvcfileError(fileName, lines.length, 'file with no instructions');
  return { nodes, escape, warnings };
}

function continuationPattern(escape: EscapeToken): RegExp {
  const e = escape === '\\' ? '\\\\' : '`';
  return new RegExp(`([^${e}])${e}[ \\t]*$|^${e}[ \\t]*$`);
}

/** The line without its continuation mark, and whether the instruction ends on it. */
function trimContinuation(line: string, pattern: RegExp): [string, boolean] {
  if (!pattern.test(line)) return [line, true];
  return [line.replace(pattern, '$1'), false];
}
