// Engine errors a user can fix, said as what to do. The engine's words (runc's, often long and
// wrapped in containerd's prefixes) follow, so nothing is lost.

/** The engine's words (dockerd's too) for a host port something else holds. */
const PORT_TAKEN = /Bind for (\S+):(\d+) failed: port is already allocated/;

const FIXES: { pattern: RegExp; advice: (m: RegExpExecArray) => string }[] = [
  {
    // runc: exec: "sh": executable file not found in $PATH / exec: "/bin/sh": stat /bin/sh: no such file…
    pattern: /exec: "([^"]+)": (?:executable file not found|stat [^:]*: no such file or directory)/,
    advice: (m) => `the image has no ${m[1]}: give a command that exists in it`,
  },
  {
    pattern: /exec: "([^"]+)": permission denied/,
    advice: (m) => `${m[1]} is not executable in the image: give a command that is`,
  },
  {
    pattern: PORT_TAKEN,
    advice: (m) =>
      `host port ${m[2]} is already in use on ${m[1]}: stop what listens there, or publish on another host port`,
  },
];

/** `message` led by what to do about it, when it is an error the user can fix; else as it is. */
export function fixableText(message: string): string {
  for (const { pattern, advice } of FIXES) {
    const m = pattern.exec(message);
    if (m) return `${advice(m)} (the engine said: ${m[0]})`;
  }
  return message;
}

/** The port a start failed to publish, from the engine's error, if that is why it failed. */
export function unpublishedPort(message: string): string | undefined {
  return PORT_TAKEN.exec(message)?.[2];
}
