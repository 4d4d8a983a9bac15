// Parsing WWW-Authenticate challenges (RFC 7235): `Bearer realm="…",service="…",scope="…"`,
// and which of them a registry client answers.

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

export function parseWwwAuthenticate(header: string | null): Challenge[] {
  if (!header) return [];
  const challenges: Challenge[] = [];
  const pattern =
    /\s*([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)(?:\s+|$)|\s*([A-Za-z0-9_.-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^,\s]*)\s*,?/gy;
  let current: Challenge | undefined;
  let match: RegExpExecArray | null;
  while (pattern.lastIndex < header.length && (match = pattern.exec(header))) {
    if (match[1] !== undefined && match[2] === undefined) {
      // A token not followed by `=` starts a new challenge.
      current = { scheme: match[1].toLowerCase(), params: {} };
      challenges.push(current);
    } else if (current && match[2] !== undefined) {
      const raw = match[3];
      current.params[match[2].toLowerCase()] = raw.startsWith('"')
        ? raw.slice(1, -1).replace(/\\(.)/g, '$1')
        : raw;
    }
    if (match[0] === '') break;
  }
  return challenges;
}

/** The challenge a client answers: Bearer where offered, else Basic; undefined for neither. */
export function pickChallenge(header: string | null): Challenge | undefined {
  const challenges = parseWwwAuthenticate(header);
  return challenges.find((c) => c.scheme === 'bearer') ?? challenges.find((c) => c.scheme === 'basic');
}

/** The token scopes a challenge names (`scope="a b"`). */
export function challengeScopes(challenge: Challenge): string[] {
  return challenge.params.scope ? challenge.params.scope.split(' ') : [];
}
