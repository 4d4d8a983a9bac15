// The instructions that only change the image config (ENV, LABEL, MAINTAINER, EXPOSE, USER,
// VOLUME, STOPSIGNAL, HEALTHCHECK, SHELL, CMD, ENTRYPOINT, ONBUILD): each sets its part of the
// config and names the history line of its metadata step.
import { InvalidParameterError } from '../../api/errors';
import type { OciContainerConfig } from '../../api/image-types';
import { parseSignal } from '../../runtime/oci-spec/signals';
import type { Instruction } from './instructions';
import type { ShellLexer } from './shell-lexer';
import type { StageState } from './step-runner';

export const nop = (text: string) => `/bin/sh -c #(nop)  ${text}`;

const defaultShell = ['/bin/sh', '-c'];

/** The shell RUN, CMD and ENTRYPOINT in shell form run in: the image's SHELL, or /bin/sh -c. */
export function shellOf(state: StageState): string[] {
  const shell = state.image.config?.Shell;
  return shell && shell.length > 0 ? shell : defaultShell;
}

function setEnv(env: string[] | null | undefined, key: string, value: string): string[] {
  const list = [...(env ?? [])];
  const at = list.findIndex((e) => e === key || e.startsWith(`${key}=`));
  if (at >= 0) list[at] = `${key}=${value}`;
  else list.push(`${key}=${value}`);
  return list;
}

/** `80`, `80/udp`, `8000-8002/tcp` as ExposedPorts keys. */
function exposedPorts(spec: string): string[] {
  const m = /^(?:(?:[^:]*:)?\d*:)?(\d+)(?:-(\d+))?(?:\/(tcp|udp|sctp))?$/i.exec(spec);
  if (!m) throw new InvalidParameterError(`Invalid containerPort: ${spec}`);
  const first = Number(m[1]);
  const last = m[2] ? Number(m[2]) : first;
  if (last < first || last > 65535)
    throw new InvalidParameterError(`Invalid range specified for the Port: ${spec}`);
  const proto = (m[3] ?? 'tcp').toLowerCase();
  return Array.from({ length: last - first + 1 }, (_, i) => `${first + i}/${proto}`);
}

/** How a dispatcher reads the words of its instruction: with the stage's variables expanded. */
export interface StageWords {
  lexer: ShellLexer;
  variables(): Map<string, string>;
  word(text: string): string;
}

/** The history line (and MAINTAINER's author) of a metadata step. */
export interface MetadataStep {
  createdBy: string;
  author?: string;
}

/** The instructions besides ARG, WORKDIR, RUN, COPY and ADD (CMD shares RUN's form). */
export type MetadataInstruction = Exclude<Instruction, { kind: 'arg' | 'workdir' | 'copy' | 'add' }>;

/** Applies a metadata instruction to `config` (the stage's next config). */
export function dispatchMetadata(
  state: StageState,
  ins: MetadataInstruction,
  config: OciContainerConfig,
  words: StageWords,
): MetadataStep {
  const step = (createdBy: string, author?: string): MetadataStep => ({ createdBy, author });
  switch (ins.kind) {
    case 'env': {
      const vars = words.variables();
      const pairs = ins.pairs.map((p) => [
        words.lexer.processWord(p.key, vars),
        words.lexer.processWord(p.value, vars),
      ]);
      for (const [k, v] of pairs) config.Env = setEnv(config.Env, k, v);
      return step(nop(`ENV ${pairs.map(([k, v]) => `${k}=${v}`).join(' ')}`));
    }
    case 'label': {
      const vars = words.variables();
      const pairs = ins.pairs.map((p) =>
        ins.expand
          ? [words.lexer.processWord(p.key, vars), words.lexer.processWord(p.value, vars)]
          : [p.key, p.value],
      );
      config.Labels = { ...(config.Labels ?? {}), ...Object.fromEntries(pairs) };
      return step(nop(`LABEL ${pairs.map(([k, v]) => `${k}=${v}`).join(' ')}`));
    }
    case 'maintainer':
      return step(nop(`MAINTAINER ${ins.maintainer}`), ins.maintainer);
    case 'expose': {
      const ports = ins.ports
        .flatMap((p) => words.lexer.processWords(p, words.variables()))
        .flatMap(exposedPorts);
      config.ExposedPorts = { ...(config.ExposedPorts ?? {}) };
      for (const p of ports) config.ExposedPorts[p] = {};
      return step(nop(`EXPOSE ${ports.join(' ')}`));
    }
    case 'user':
      config.User = words.word(ins.user);
      return step(nop(`USER ${config.User}`));
    case 'volume': {
      const volumes = ins.volumes.map((v) => words.word(v));
      config.Volumes = { ...(config.Volumes ?? {}) };
      for (const v of volumes) {
        if (v === '') throw new InvalidParameterError('VOLUME specified can not be an empty string');
        config.Volumes[v] = {};
      }
      return step(nop(`VOLUME [${volumes.join(' ')}]`));
    }
    case 'stopsignal': {
      const signal = words.word(ins.signal);
      parseSignal(signal);
      config.StopSignal = signal;
      return step(nop(`STOPSIGNAL ${signal}`));
    }
    case 'healthcheck':
      config.Healthcheck = ins.health;
      return step(nop(`HEALTHCHECK &{${JSON.stringify(ins.health.Test)}}`));
    case 'shell':
      config.Shell = ins.shell;
      return step(nop(`SHELL ${JSON.stringify(ins.shell)}`));
    case 'cmd':
      config.Cmd = ins.prependShell ? [...shellOf(state), ...ins.command] : ins.command;
      state.cmdSet = true;
      return step(nop(`CMD ${JSON.stringify(config.Cmd)}`));
    case 'entrypoint':
      config.Entrypoint =
        ins.command === null ? null : ins.prependShell ? [...shellOf(state), ...ins.command] : ins.command;
      if (!state.cmdSet) config.Cmd = null;
      return step(nop(`ENTRYPOINT ${JSON.stringify(config.Entrypoint ?? [])}`));
    case 'onbuild':
      config.OnBuild = [...(config.OnBuild ?? []), ins.expression];
      return step(nop(`ONBUILD ${ins.expression}`));
  } // RUN, the one left: the builder runs it as a container step.
  throw new Error(`${ins.kind} is not a metadata instruction`);
}
