import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSvcfile } from './svcfile-parser';
import { planBuild, triggerInstruction, type Instruction } from './instructions';
import { envMap, ShellLexer } from './shell-lexer';
import { SvcfileError } from './svcfile-error';
import { InvalidParameterError } from '../../api/errors';

const plan = (text: string) => planBuild(parseSvcfile(text), 'Svcfile');

function failsAt(text: string, line: number, message: RegExp): void {
  assert.throws(
    () => plan(text),
    (err: unknown) => {
      assert.ok(err instanceof SvcfileError, String(err));
      assert.equal(err.line, line, err.message);
      assert.match(err.message, new RegExp(`^Svcfile parse error line ${line}: `));
      assert.match(err.message, message);
      return true;
    },
  );
}

describe('lines', () => {
  test('comments, blank lines and continuations; line numbers of the first physical line', () => {
    const parsed = parseSvcfile(
      [
        '# a comment',
        '',
        'FROM busybox',
        'RUN echo a \\',
        '  # a comment inside',
        '    && echo b',
        '   ENV A=1',
        'LABEL x=1 \\',
        '',
        '  y=2',
      ].join('\n'),
    );
    assert.deepEqual(
      parsed.nodes.map((n) => [n.keyword, n.line, n.endLine, n.original]),
      [
        ['from', 3, 3, 'FROM busybox'],
        ['run', 4, 6, 'RUN echo a     && echo b'],
        ['env', 7, 7, 'ENV A=1'],
        ['label', 8, 10, 'LABEL x=1   y=2'],
      ],
    );
    assert.equal(parsed.warnings.length, 1, 'an empty continuation line is warned about');
  });

  test('CRLF line ends and a byte order mark are tolerated', () => {
    const parsed = parseSvcfile('\uFEFFFROM busybox\r\nRUN true\r\n');
    assert.deepEqual(
      parsed.nodes.map((n) => n.original),
      ['FROM busybox', 'RUN true'],
    );
  });

  test('the escape directive switches the escape and continuation token', () => {
    const parsed = parseSvcfile('# escape=`\nFROM busybox\nRUN dir c:\\ `\n  && echo x\nCOPY a\\b c\\\n');
    assert.equal(parsed.escape, '`');
    assert.deepEqual(
      parsed.nodes.map((n) => n.original),
      ['FROM busybox', 'RUN dir c:\\   && echo x', 'COPY a\\b c\\'],
    );
  });

  test('directives count only at the top; a repeated one is an error', () => {
    assert.equal(parseSvcfile('FROM busybox\n# escape=`\nRUN a \\\n b').escape, '\\');
    assert.throws(
      () => parseSvcfile('# escape=`\n# escape=\\\nFROM x'),
      /line 2: only one escape parser directive/,
    );
    assert.throws(() => parseSvcfile('# escape=x\nFROM x'), /line 1: invalid escape token 'x'/);
  });

  test('a file with nothing in it is refused', () => {
    assert.throws(() => parseSvcfile('# nothing\n\n'), /file with no instructions/);
  });

  test('exec form, shell form and flags', () => {
    const [copy, run, cmd] = parseSvcfile(
      'COPY --chown=1:2 --from="build" ["a b", "c"]\nRUN ["echo", "hi"]\nCMD echo "$HOME"',
    ).nodes;
    assert.deepEqual(
      [copy.flags, copy.args, copy.json],
      [['--chown=1:2', '--from=build'], ['a b', 'c'], true],
    );
    assert.deepEqual([run.args, run.json], [['echo', 'hi'], true]);
    assert.deepEqual([cmd.args, cmd.json], [['echo "$HOME"'], false]);
    assert.throws(() => parseSvcfile('RUN ["echo", 1]'), /line 1: when using JSON array syntax/);
  });

  test('ENV and LABEL pairs keep their quotes for expansion; the one-pair form takes the rest', () => {
    const [a, b] = parseSvcfile('ENV A="x y" B=z\\ w\nENV C  the rest  of it').nodes;
    assert.deepEqual(a.args, ['A', '"x y"', 'B', 'z\\ w']);
    assert.deepEqual(b.args, ['C', 'the rest  of it']);
    assert.throws(() => parseSvcfile('LABEL a=1 b'), /line 1: Syntax error - can't find = in "b"/);
    assert.throws(() => parseSvcfile('ENV A'), /line 1: ENV must have two arguments/);
  });
});

describe('variable substitution', () => {
  const lexer = new ShellLexer();
  const env = envMap(['A=apple', 'EMPTY=', 'SP=a b']);
  const cases: Array<[string, string]> = [
    ['$A', 'apple'],
    ['${A}', 'apple'],
    ['x${A}y', 'xappley'],
    ['$NOPE', ''],
    ['${NOPE:-word}', 'word'],
    ['${EMPTY:-word}', 'word'],
    ['${A:-word}', 'apple'],
    ['${A:+word}', 'word'],
    ['${EMPTY:+word}', ''],
    ['${NOPE:+word}', ''],
    ['${NOPE:-$A}', 'apple'],
    ['${NOPE:-"a  b"}', 'a  b'],
    ["'$A'", '$A'],
    ['"$A"', 'apple'],
    ['\\$A', '$A'],
    ['"\\$A"', '$A'],
    ['"a\\b"', 'a\\b'],
    ['$', '$'],
    ['a\\ b', 'a b'],
  ];
  for (const [word, expected] of cases) {
    test(`${word} → ${JSON.stringify(expected)}`, () => assert.equal(lexer.processWord(word, env), expected));
  }

  test('errors: unclosed braces and quotes, bad substitutions, ${var:?}', () => {
    for (const [word, message] of [
      ['${A', /missing '}'/],
      ['${A:-x', /missing '}'/],
      ['${}', /bad substitution/],
      ['${A-x}', /missing ':' in substitution/],
      ['${A:=x}', /unsupported modifier \(=\)/],
      ['"abc', /matching double-quote/],
      ["'abc", /matching single-quote/],
      ['${NOPE:?must be set}', /NOPE: must be set/],
      ['${EMPTY:?}', /EMPTY: is not allowed to be empty/],
    ] as const) {
      assert.throws(
        () => lexer.processWord(word, env),
        (err: unknown) => {
          assert.ok(err instanceof InvalidParameterError);
          assert.match(err.message, message);
          return true;
        },
      );
    }
  });

  test('words split where an unquoted expansion has spaces, as EXPOSE needs', () => {
    assert.deepEqual(lexer.processWords('$SP 80', env), ['a', 'b', '80']);
    assert.deepEqual(lexer.processWords('"$SP" 80', env), ['a b', '80']);
  });

  test('the backtick escape', () => {
    assert.equal(new ShellLexer('`').processWord('c:\\dir `$A', env), 'c:\\dir $A');
  });
});

describe('instructions', () => {
  test('every instruction, typed', () => {
    const p = plan(
      [
        'ARG BASE=busybox',
        'FROM $BASE AS build',
        'MAINTAINER someone <a@b>',
        'ENV A=1 B="2 3"',
        'LABEL k=v',
        'ADD --chown=1:1 a.tar /x/',
        'COPY a b /dest/',
        'WORKDIR /w',
        'RUN echo hi',
        'CMD ["sh"]',
        'ENTRYPOINT ["/bin/sh", "-c"]',
        'HEALTHCHECK --interval=5s --timeout=1m30s --retries=3 CMD ["true"]',
        'EXPOSE 80 53/udp 8000-8010/tcp',
        'USER svc',
        'VOLUME ["/data", "/more"]',
        'STOPSIGNAL SIGINT',
        'SHELL ["/bin/sh", "-ec"]',
        'ONBUILD RUN echo triggered',
        'FROM scratch',
        'COPY --from=build /x /y',
      ].join('\n'),
    );
    assert.deepEqual(
      p.metaArgs.map((a) => a.args),
      [[{ key: 'BASE', value: 'busybox' }]],
    );
    assert.equal(p.stages.length, 2);
    assert.deepEqual(
      [p.stages[0].name, p.stages[0].baseName, p.stages[1].name, p.stages[1].baseName],
      ['build', '$BASE', undefined, 'scratch'],
    );
    const byKind = new Map<string, Instruction>(p.stages[0].instructions.map((i) => [i.kind, i]));
    assert.deepEqual(
      [...byKind.keys()],
      [
        'maintainer',
        'env',
        'label',
        'add',
        'copy',
        'workdir',
        'run',
        'cmd',
        'entrypoint',
        'healthcheck',
        'expose',
        'user',
        'volume',
        'stopsignal',
        'shell',
        'onbuild',
      ],
    );
    assert.deepEqual(byKind.get('healthcheck'), {
      kind: 'healthcheck',
      line: 12,
      original: 'HEALTHCHECK --interval=5s --timeout=1m30s --retries=3 CMD ["true"]',
      health: { Test: ['CMD', 'true'], Interval: 5e9, Timeout: 90e9, StartPeriod: 0, Retries: 3 },
    });
    assert.deepEqual(byKind.get('run'), {
      kind: 'run',
      line: 9,
      original: 'RUN echo hi',
      command: ['echo hi'],
      prependShell: true,
    });
    assert.deepEqual(byKind.get('onbuild'), {
      kind: 'onbuild',
      line: 18,
      original: 'ONBUILD RUN echo triggered',
      expression: 'RUN echo triggered',
    });
    const copy = p.stages[1].instructions[0];
    assert.equal(copy.kind === 'copy' && copy.from, 'build');
  });

  test('syntax errors name their line, the first one found', () => {
    failsAt('FROM busybox\nRUN true\nFOO bar\nBAR baz', 3, /unknown instruction: FOO/);
    failsAt('RUN true\nFROM busybox', 1, /no build stage in current context/);
    failsAt('FROM busybox\nCOPY --chown=1 --bogus=2 a b', 2, /Unknown flag: bogus/);
    failsAt('FROM busybox\nCOPY --chown a b', 2, /Missing a value on flag: chown/);
    failsAt('FROM busybox\nCOPY --chown=1 --chown=2 a b', 2, /Duplicate flag specified: chown/);
    failsAt('FROM busybox\nCOPY a', 2, /COPY requires at least two arguments/);
    failsAt('FROM busybox\nADD --from=x a b', 2, /Unknown flag: from/);
    failsAt('FROM busybox\n\nRUN --network=none true', 3, /RUN --network requires BuildKit.*networkmode/);
    failsAt('FROM busybox\nRUN --mount=type=cache,target=/x true', 2, /--mount requires BuildKit/);
    failsAt('FROM busybox\nCOPY --chmod=644 a b', 2, /--chmod option requires BuildKit/);
    failsAt('FROM busybox\nWORKDIR', 2, /WORKDIR requires exactly one argument/);
    failsAt('FROM busybox\nSHELL /bin/bash -c', 2, /SHELL requires the arguments to be in JSON form/);
    failsAt('FROM busybox\nSTOPSIGNAL SIGNOPE', 2, /Invalid signal: SIGNOPE/);
    failsAt('FROM busybox\nEXPOSE 80/tcpx', 2, /Invalid containerPort: 80\/tcpx/);
    failsAt('FROM busybox\nHEALTHCHECK --interval=0.5ms CMD true', 2, /cannot be less than 1ms/);
    failsAt('FROM busybox\nHEALTHCHECK --interval=5 CMD true', 2, /invalid duration "5"/);
    failsAt('FROM busybox\nHEALTHCHECK --retries=0 CMD true', 2, /--retries must be at least 1/);
    failsAt('FROM busybox\nHEALTHCHECK WHAT true', 2, /Unknown type "WHAT" in HEALTHCHECK/);
    failsAt('FROM busybox\nHEALTHCHECK NONE x', 2, /HEALTHCHECK NONE takes no arguments/);
    failsAt('FROM busybox\nONBUILD ONBUILD RUN x', 2, /Chaining ONBUILD/);
    failsAt('FROM busybox\nONBUILD FROM x', 2, /FROM isn't allowed as an ONBUILD trigger/);
    failsAt('FROM busybox\nONBUILD NOPE x', 2, /unknown instruction: NOPE/);
    failsAt('FROM busybox AS 1st', 1, /invalid name for build stage: "1st"/);
    failsAt('FROM busybox AS', 1, /FROM requires either one or three arguments/);
    failsAt('FROM a AS x\nFROM b AS X', 2, /x stage name already used/);
    failsAt('FROM --platform=linux/amd64 --os=x busybox', 1, /Unknown flag: os/);
    failsAt('FROM busybox\nENV =x', 2, /ENV names can not be blank/);
    failsAt('FROM busybox\nARG =x', 2, /ARG names can not be blank/);
  });

  test('COPY --from must name an earlier stage', () => {
    failsAt('FROM busybox AS a\nCOPY --from=a /x /y', 2, /refers to the current build stage/);
    failsAt('FROM busybox\nCOPY --from=0 /x /y', 2, /refers to the current build stage/);
    failsAt('FROM busybox\nCOPY --from=1 /x /y\nFROM busybox AS b', 2, /refers to a later build stage/);
    failsAt(
      'FROM busybox\nCOPY --from=later /x /y\nFROM busybox AS later',
      2,
      /refers to a later build stage/,
    );
    assert.equal(plan('FROM busybox\nCOPY --from=some/image:tag /x /y').stages.length, 1);
  });

  test('ONBUILD triggers parse as instructions of their own', () => {
    assert.deepEqual(triggerInstruction('COPY a /b', '\\'), {
      kind: 'copy',
      line: 0,
      original: 'COPY a /b',
      sources: ['a'],
      dest: '/b',
      chown: '',
      from: '',
    });
    assert.throws(() => triggerInstruction('FROM x', '\\'), /FROM isn't allowed/);
  });
});
