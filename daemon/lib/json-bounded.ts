// JSON from clients, parsed with a bound on nesting: no Engine API body or query value nests
// deeper than a handful of levels, and a deeply nested one (100,000 `[`) would otherwise reach
// code that walks it recursively and overflow the stack, a 500 instead of the client's error.
import { InvalidParameterError } from '../api/errors';

export const maxJsonDepth = 64;

/** The deepest nesting of `text`'s arrays and objects, counting no further than `limit + 1`. */
export function jsonDepth(text: string, limit = maxJsonDepth): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Parses JSON (`what` names it in errors), refusing what nests deeper than maxJsonDepth. */
export function parseJsonBounded(text: string, what: string): unknown {
  if (jsonDepth(text) > maxJsonDepth) {
    throw new InvalidParameterError(`${what} nests deeper than ${maxJsonDepth} levels`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InvalidParameterError(`invalid ${what}: ${(err as Error).message}`);
  }
}
