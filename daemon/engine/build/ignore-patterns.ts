// The ignore file of a build context (`.svcignore`, or its twin `.dockerignore`): one pattern a
// line, `#` comments, `*`, `?`, `[...]` within one path segment, `**` across segments, and `!` to
// take back an earlier exclusion. The last pattern that matches a path decides; a pattern that
// matches a directory matches everything below it.
import { posix } from 'node:path';
import { InvalidParameterError } from '../../api/errors';

interface Pattern {
  regexp: RegExp;
  /** How many path segments the pattern has: a parent directory is matched on that many. */
  segments: number;
  exception: boolean;
}

/** One glob as an anchored regular expression over `/`-separated paths; `**` spans segments unless `crossSegments` is false (COPY sources, as Go's filepath.Match). */
export function globRegExp(glob: string, crossSegments = true): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '*') {
      if (crossSegments && glob[i + 1] === '*') {
        i++;
        if (glob[i + 1] === '/') i++;
        source += i + 1 >= glob.length ? '.*' : '(?:.*/)?';
      } else source += '[^/]*';
    } else if (ch === '?') source += '[^/]';
    else if (ch === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) throw new InvalidParameterError(`syntax error in pattern: ${glob}`);
      const body = glob
        .slice(i + 1, end)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\');
      source += `[${body}]`;
      i = end;
    } else if (ch === '\\' && i + 1 < glob.length) {
      source += glob[++i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    } else source += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** `filepath.Clean` for patterns: `.` and `..` folded, slashes squeezed, no trailing slash. */
function clean(pattern: string): string {
  const normal = posix.normalize(pattern);
  return normal.length > 1 ? normal.replace(/\/$/, '') : normal;
}

export class IgnorePatterns {
  private readonly patterns: Pattern[];

  constructor(lines: readonly string[]) {
    this.patterns = lines.map((line) => {
      const exception = line.startsWith('!');
      const glob = exception ? line.slice(1) : line;
      if (exception && glob === '') throw new InvalidParameterError('illegal exclusion pattern: "!"');
      return { regexp: globRegExp(glob), segments: glob.split('/').length, exception };
    });
  }

  /** Reads an ignore file's text (a byte order mark, comments and blank lines allowed). */
  static parse(text: string): IgnorePatterns {
    const lines: string[] = [];
    for (const raw of text.replace(/^\uFEFF/, '').split('\n')) {
      if (raw.startsWith('#')) continue;
      let line = raw.trim();
      if (line === '') continue;
      const exception = line.startsWith('!');
      if (exception) line = line.slice(1).trim();
      if (line !== '') {
        line = clean(line);
        if (line.length > 1 && line.startsWith('/')) line = line.slice(1);
      }
      lines.push(exception ? `!${line}` : line);
    }
    return new IgnorePatterns(lines);
  }

  get empty(): boolean {
    return this.patterns.length === 0;
  }

  /** Whether `path` (relative to the context root, `/`-separated) is left out of the context. */
  matches(path: string): boolean {
    const file = clean(path);
    if (file === '.') return false;
    const parents = posix.dirname(file).split('/');
    let matched = false;
    for (const p of this.patterns) {
      let hit = p.regexp.test(file);
      if (!hit && parents[0] !== '.' && p.segments <= parents.length) {
        hit = p.regexp.test(parents.slice(0, p.segments).join('/'));
      }
      if (hit) matched = !p.exception;
    }
    return matched;
  }
}
