// The second pass: each parsed line becomes a typed instruction, every flag and argument count
// checked, and the instructions grouped into stages. Everything a file can get wrong without
// knowing the build's variables is found here, so a bad file is refused before any step runs.
import type { HealthConfig } from '../../api/container-types';
import { parseGoDuration } from '../../lib/go-duration';
import { parseSignal } from '../../runtime/oci-spec/signals';
import { SvcfileError } from './svcfile-error';
import { parseInstructionLine, type ParsedSvcfile, type SvcfileNode } from './svcfile-parser';

export interface KeyValue {
  key: string;
  value: string;
}

interface Located {
  /** Line of the instruction in the file (0 for a trigger or a `labels` option). */
  line: number;
  /** As written, trimmed: what `Step N/M :` shows. */
  original: string;
}

export interface ShellDependentCommand {
  /** The exec form's words, or one element holding the shell form's text. */
  command: string[];
  /** Shell form: run through SHELL (`/bin/sh -c` by default). */
  prependShell: boolean;
}

export type Instruction = Located &
  (
    | { kind: 'env'; pairs: KeyValue[] }
    | { kind: 'label'; pairs: KeyValue[]; expand: boolean }
    | { kind: 'maintainer'; maintainer: string }
    | { kind: 'copy' | 'add'; sources: string[]; dest: string; chown: string; from: string }
    | { kind: 'onbuild'; expression: string }
    | { kind: 'workdir'; path: string }
    | ({ kind: 'run' | 'cmd' } & ShellDependentCommand)
    | { kind: 'entrypoint'; command: string[] | null; prependShell: boolean }
    | { kind: 'healthcheck'; health: HealthConfig }
    | { kind: 'expose'; ports: string[] }
    | { kind: 'user'; user: string }
    | { kind: 'volume'; volumes: string[] }
    | { kind: 'stopsignal'; signal: string }
    | { kind: 'arg'; args: Array<{ key: string; value?: string }> }
    | { kind: 'shell'; shell: string[] }
  );

export type InstructionOf<K extends Instruction['kind']> = Extract<Instruction, { kind: K }>;

export interface Stage extends Located {
  index: number;
  /** `AS name`, lower-cased. */
  name?: string;
  /** The image (or earlier stage) it starts from, before variables are expanded. */
  baseName: string;
  platform: string;
  instructions: Instruction[];
}

export interface BuildPlan {
  /** The instructions file's kind, for messages (`Svcfile`, `Dockerfile`). */
  file: string;
  /** ARG instructions before the first FROM: they parameterise FROM lines. */
  metaArgs: InstructionOf<'arg'>[];
  stages: Stage[];
}

const stageNamePattern = /^[a-z][a-z0-9\-_.]*$/;
const buildKitOnly = new Set(['mount', 'network', 'security']);

/** `--name=value` flags against the ones an instruction takes; unknown or repeated ones are errors. */
function readFlags(keyword: string, flags: string[], allowed: readonly string[]): Map<string, string> {
  const values = new Map<string, string>();
  for (const raw of flags) {
    const body = raw.slice(2);
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    if (name === 'chmod' && (keyword === 'copy' || keyword === 'add')) {
      throw new Error(
        'the --chmod option requires BuildKit; svcd builds with the classic builder, which has no --chmod',
      );
    }
    if (keyword === 'run' && buildKitOnly.has(name)) {
      throw new Error(
        name === 'network'
          ? "RUN --network requires BuildKit; in the classic builder every RUN uses the build's network, set with the networkmode option (docker build --network)"
          : `RUN --${name} requires BuildKit; svcd builds with the classic builder, which has no --${name}`,
      );
    }
    if (!allowed.includes(name)) throw new Error(`Unknown flag: ${name}`);
    if (values.has(name)) throw new Error(`Duplicate flag specified: ${name}`);
    if (eq < 0) throw new Error(`Missing a value on flag: ${name}`);
    values.set(name, body.slice(eq + 1));
  }
  return values;
}

function exactlyOne(node: SvcfileNode, name: string): string {
  if (node.args.length !== 1) throw new Error(`${name} requires exactly one argument`);
  return node.args[0];
}

function pairs(node: SvcfileNode, name: string): KeyValue[] {
  if (node.args.length === 0) throw new Error(`${name} requires at least one argument`);
  if (node.args.length % 2 !== 0) throw new Error(`Bad input to ${name}, too many arguments`);
  const out: KeyValue[] = [];
  for (let i = 0; i < node.args.length; i += 2) {
    if (node.args[i] === '') throw new Error(`${name} names can not be blank`);
    out.push({ key: node.args[i], value: node.args[i + 1] });
  }
  return out;
}

function shellDependent(node: SvcfileNode): ShellDependentCommand {
  const command = node.json ? node.args : node.args.length === 0 ? [] : [node.args.join(' ')];
  return { command, prependShell: !node.json };
}

function interval(flags: Map<string, string>, name: string): number {
  const text = flags.get(name);
  if (text === undefined || text === '') return 0;
  const ns = parseGoDuration(text);
  if (ns === undefined) throw new Error(`time: invalid duration ${JSON.stringify(text)}`);
  if (ns < 1_000_000) throw new Error(`Interval "${name}" cannot be less than 1ms`);
  return ns;
}

function healthcheck(node: SvcfileNode): HealthConfig {
  if (node.args.length === 0) throw new Error('HEALTHCHECK requires at least one argument');
  const type = node.args[0].toUpperCase();
  const rest = node.args.slice(1);
  if (type === 'NONE') {
    if (rest.length !== 0) throw new Error('HEALTHCHECK NONE takes no arguments');
    return { Test: ['NONE'] };
  }
  const flags = readFlags('healthcheck', node.flags, ['interval', 'timeout', 'start-period', 'retries']);
  if (type !== 'CMD') throw new Error(`Unknown type ${JSON.stringify(type)} in HEALTHCHECK (try CMD)`);
  const command = node.json ? rest : rest.length === 0 ? [] : [rest.join(' ')];
  if (command.length === 0) throw new Error('Missing command after HEALTHCHECK CMD');
  const health: HealthConfig = {
    Test: [node.json ? 'CMD' : 'CMD-SHELL', ...command],
    Interval: interval(flags, 'interval'),
    Timeout: interval(flags, 'timeout'),
    StartPeriod: interval(flags, 'start-period'),
    Retries: 0,
  };
  const retries = flags.get('retries');
  if (retries !== undefined && retries !== '') {
    if (!/^[-+]?\d+$/.test(retries))
      throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(retries)}: invalid syntax`);
    const n = Number(retries);
    if (n < 1) throw new Error(`--retries must be at least 1 (not ${n})`);
    health.Retries = n;
  }
  return health;
}

/** What can be checked of a value that may hold variables: only the ones without any. */
const literal = (text: string) => !text.includes('$');

function exposedPort(port: string): void {
  if (literal(port) && !/^(?:(?:[^:]*:)?\d*:)?\d+(?:-\d+)?(?:\/(?:tcp|udp|sctp))?$/i.test(port)) {
    throw new Error(`Invalid containerPort: ${port}`);
  }
}

function instructionOf(node: SvcfileNode): Instruction {
  const located = { line: node.line, original: node.original.trim() };
  const noFlags = () => readFlags(node.keyword, node.flags, []);
  switch (node.keyword) {
    case 'env':
      noFlags();
      return { ...located, kind: 'env', pairs: pairs(node, 'ENV') };
    case 'label':
      noFlags();
      return { ...located, kind: 'label', pairs: pairs(node, 'LABEL'), expand: true };
    case 'maintainer':
      noFlags();
      return { ...located, kind: 'maintainer', maintainer: exactlyOne(node, 'MAINTAINER') };
    case 'add':
    case 'copy': {
      const name = node.keyword.toUpperCase();
      const flags = readFlags(
        node.keyword,
        node.flags,
        node.keyword === 'copy' ? ['chown', 'from'] : ['chown'],
      );
      if (node.args.length < 2) {
        throw new Error(
          `${name} requires at least two arguments, but only one was provided. Destination could not be determined`,
        );
      }
      const from = flags.get('from') ?? '';
      if (flags.has('from') && from === '') throw new Error('--from needs a stage name, index or image');
      return {
        ...located,
        kind: node.keyword,
        sources: node.args.slice(0, -1),
        dest: node.args[node.args.length - 1],
        chown: flags.get('chown') ?? '',
        from,
      };
    }
    case 'onbuild': {
      noFlags();
      const trigger = node.trigger;
      if (!trigger) throw new Error('ONBUILD requires at least one argument');
      const name = trigger.keyword.toUpperCase();
      if (name === 'ONBUILD') throw new Error("Chaining ONBUILD via `ONBUILD ONBUILD` isn't allowed");
      if (name === 'MAINTAINER' || name === 'FROM')
        throw new Error(`${name} isn't allowed as an ONBUILD trigger`);
      // The trigger runs in a child build: check it now all the same.
      instructionOf(trigger);
      return { ...located, kind: 'onbuild', expression: located.original.replace(/^\s*ONBUILD\s*/i, '') };
    }
    case 'workdir':
      noFlags();
      return { ...located, kind: 'workdir', path: exactlyOne(node, 'WORKDIR') };
    case 'run':
      readFlags('run', node.flags, []);
      return { ...located, kind: 'run', ...shellDependent(node) };
    case 'cmd':
      noFlags();
      return { ...located, kind: 'cmd', ...shellDependent(node) };
    case 'entrypoint': {
      noFlags();
      const { command, prependShell } = shellDependent(node);
      return { ...located, kind: 'entrypoint', command: command.length === 0 ? null : command, prependShell };
    }
    case 'healthcheck':
      return { ...located, kind: 'healthcheck', health: healthcheck(node) };
    case 'expose': {
      if (node.args.length === 0) throw new Error('EXPOSE requires at least one argument');
      noFlags();
      node.args.forEach(exposedPort);
      return { ...located, kind: 'expose', ports: [...node.args].sort() };
    }
    case 'user':
      noFlags();
      return { ...located, kind: 'user', user: exactlyOne(node, 'USER') };
    case 'volume': {
      if (node.args.length === 0) throw new Error('VOLUME requires at least one argument');
      noFlags();
      const volumes = node.args.map((v) => v.trim());
      if (volumes.some((v) => v === '')) throw new Error('VOLUME specified can not be an empty string');
      return { ...located, kind: 'volume', volumes };
    }
    case 'stopsignal': {
      noFlags();
      const signal = exactlyOne(node, 'STOPSIGNAL');
      if (literal(signal)) parseSignal(signal);
      return { ...located, kind: 'stopsignal', signal };
    }
    case 'arg': {
      noFlags();
      if (node.args.length === 0) throw new Error('ARG requires at least one argument');
      const args = node.args.map((arg) => {
        const eq = arg.indexOf('=');
        if (eq < 0) return { key: arg };
        if (eq === 0) throw new Error('ARG names can not be blank');
        return { key: arg.slice(0, eq), value: arg.slice(eq + 1) };
      });
      return { ...located, kind: 'arg', args };
    }
    case 'shell': {
      noFlags();
      if (node.args.length === 0) throw new Error('SHELL requires at least one argument');
      if (!node.json) throw new Error('SHELL requires the arguments to be in JSON form');
      return { ...located, kind: 'shell', shell: node.args };
    }
    default:
      throw new Error(`unknown instruction: ${node.keyword.toUpperCase()}`);
  }
}

function stageOf(node: SvcfileNode, index: number): Stage {
  const flags = readFlags('from', node.flags, ['platform']);
  const args = node.args;
  let name: string | undefined;
  if (args.length === 3 && args[1].toLowerCase() === 'as') {
    name = args[2].toLowerCase();
    if (!stageNamePattern.test(name)) {
      throw new Error(
        `invalid name for build stage: ${JSON.stringify(args[2])}, name can't start with a number or contain symbols`,
      );
    }
  } else if (args.length !== 1) {
    throw new Error('FROM requires either one or three arguments');
  }
  return {
    index,
    name,
    baseName: args[0],
    platform: flags.get('platform') ?? '',
    line: node.line,
    original: node.original.trim(),
    instructions: [],
  };
}

/**
 * `--from` names an earlier stage, by name or index, or else an image: a stage not built yet
 * (itself or a later one) cannot be copied from.
 */
function checkCopyFrom(plan: BuildPlan): void {
  for (const stage of plan.stages) {
    for (const i of stage.instructions) {
      if (i.kind !== 'copy' || !i.from) continue;
      const named = plan.stages.find((s) => s.name === i.from.toLowerCase());
      const index = /^\d+$/.test(i.from) ? Number(i.from) : named?.index;
      if (index === undefined || index < stage.index) continue;
      const what = index === stage.index ? 'the current build stage' : 'a later build stage';
      throw new SvcfileError(
        plan.file,
        i.line,
        `--from=${i.from} refers to ${what}; only earlier stages can be copied from`,
      );
    }
  }
}

/** Types every line them into stages; throws SvcfileError at the first bad line. */
export function planBuild(parsed: ParsedSvcfile, file: string): BuildPlan {
  const plan: BuildPlan = { file, metaArgs: [], stages: [] };
  const names = new Set<string>();
  for (const node of parsed.nodes) {
    try {
      if (node.keyword === 'from') {
        const stage = stageOf(node, plan.stages.length);
        if (stage.name) {
          if (names.has(stage.name)) throw new Error(`${stage.name} stage name already used`);
          names.add(stage.name);
        }
        plan.stages.push(stage);
        continue;
      }
      const instruction = instructionOf(node);
      const stage = plan.stages.at(-1);
      if (stage) stage.instructions.push(instruction);
      else if (instruction.kind === 'arg') plan.metaArgs.push(instruction);
      else throw new Error('no build stage in current context');
    } catch (err) {
      throw new SvcfileError(file, node.line, (err as Error).message);
    }
  }
  if (plan.stages.length === 0) {
    throw new SvcfileError(file, parsed.nodes.at(-1)?.line ?? 1, 'no build stage in current context');
  }
  checkCopyFrom(plan);
  return plan;
}

/** An ONBUILD trigger of a base image, as a child build runs it. */
export function triggerInstruction(expression: string, escape: '\\' | '`'): Instruction {
  const node = { ...parseInstructionLine(expression, escape), line: 0, endLine: 0 };
  if (node.keyword === 'from' || node.keyword === 'onbuild' || node.keyword === 'maintainer') {
    throw new Error(`${node.keyword.toUpperCase()} isn't allowed as an ONBUILD trigger`);
  }
  return instructionOf(node);
}
