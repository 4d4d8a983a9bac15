// `.svcignore` (or `.dockerignore`) read in the renderer, so an uploaded folder leaves out what
// the engine would, and the size shown before sending is the size sent. The rules are the
// engine's: one pattern a line, `#` comments, `*` `?` `[…]` within a segment, `**` across
// segments, `!` takes an exclusion back, the last matching pattern decides, and a pattern that
// matches a directory covers everything under it.

interface Rule {
  re: RegExp;
  depth: number;
  keep: boolean;
}

const special = /[.+^${}()|\\/]/g;

function toRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      i += glob[i + 2] === '/' ? 2 : 1;
      out += i + 1 >= glob.length ? '.*' : '(?:.*/)?';
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) throw new Error(`bad pattern in the ignore file: ${glob}`);
      out += `[${glob
        .slice(i + 1, end)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\')}]`;
      i = end;
    } else if (c === '\\' && i + 1 < glob.length) out += glob[++i].replace(special, '\\$&');
    else out += c.replace(special, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** Collapses `.`, `..` and repeated or trailing slashes, as the engine cleans each pattern. */
function clean(p: string): string {
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/');
}

export type IgnoreTest = (path: string) => boolean;

/** A test of whether a context path (`a/b/c`) is left out, from the ignore file's text. */
export function ignoreTest(text: string): IgnoreTest {
  const rules: Rule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const keep = line.startsWith('!');
    if (keep) line = line.slice(1).trim();
    const glob = clean(line);
    if (!glob) continue;
    rules.push({ re: toRegExp(glob), depth: glob.split('/').length, keep });
  }
  return (path) => {
    const segs = path.split('/');
    let ignored = false;
    for (const r of rules) {
      const hit = r.re.test(path) || (segs.length > r.depth && r.re.test(segs.slice(0, r.depth).join('/')));
      if (hit) ignored = !r.keep;
    }
    return ignored;
  };
}
