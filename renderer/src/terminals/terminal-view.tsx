// Shells in the container, several at once in tabs: exec create (Tty), then a WebSocket the
// gateway bridges to the hijacked exec start. Resize goes to the exec; Ctrl+Shift+C /
// Ctrl+Shift+V copy and paste (Ctrl+Shift+L, Alt+1…9 and Ctrl+Shift+K go to the app); when the
// container comes back after a restart (a new start time) each terminal reconnects by itself.
import { useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import './terminal.css';
import '@xterm/xterm/css/xterm.css';
import { engine } from '../api/engine-client';
import { errorText } from '../api/gateway';

type Phase = 'connecting' | 'connected' | 'closed';

const SHELLS = ['/bin/sh', '/bin/bash', '/bin/ash', '/bin/zsh'];

/** The shells the container's file system holds: only those are offered. */
function useShells(containerId: string, running: boolean) {
  return useQuery({
    queryKey: ['container', { id: containerId, shells: true }],
    queryFn: async () => {
      const found = await Promise.all(SHELLS.map((s) => engine.pathExists(containerId, s)));
      return SHELLS.filter((_, i) => found[i]);
    },
    enabled: running,
    staleTime: Infinity,
  });
}

interface Target {
  containerId: string;
  running: boolean;
  /** The container's start time: a new one means it restarted and the shell must be new too. */
  startedAt: string;
}

export function TerminalView(target: Target) {
  const shells = useShells(target.containerId, target.running);
  const [chosen, setShell] = useState<string>();
  const shell = chosen ?? shells.data?.[0];
  const [sessions, setSessions] = useState<{ key: number; shell: string }[]>([]);
  const [active, setActive] = useState(0);
  const next = useRef(1);
  const open = (s: string) => {
    const key = next.current++;
    setSessions((list) => [...list, { key, shell: s }]);
    setActive(key);
  };
  const close = (key: number) => {
    const rest = sessions.filter((t) => t.key !== key);
    setSessions(rest);
    if (key === active) setActive(rest.at(-1)?.key ?? 0);
  };
  // The first terminal opens with the first shell found.
  useEffect(() => {
    if (shell && next.current === 1) open(shell);
  }, [shell]);

  return (
    <div className="terminal">
      <div className="toolbar">
        <label>
          Shell{' '}
          <select value={shell ?? ''} onChange={(e) => setShell(e.target.value)} aria-label="Shell">
            {(shells.data ?? []).map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <button onClick={() => shell && open(shell)} disabled={!shell}>
          New terminal
        </button>
        <span className="muted">
          Ctrl+Shift+C copy · Ctrl+Shift+V paste · Ctrl+Shift+L leaves the terminal
        </span>
        {shells.isSuccess && !shell ? (
          <span role="status">No shell in the container (looked for {SHELLS.join(', ')}).</span>
        ) : null}
        {!target.running ? (
          <span role="status">The container is not running. The terminal reconnects when it starts.</span>
        ) : null}
      </div>
      <div role="tablist" aria-label="Terminals" className="tabs">
        {sessions.map((t, i) => (
          <span key={t.key} className="term-tab">
            <button role="tab" aria-selected={t.key === active} onClick={() => setActive(t.key)}>
              {i + 1}: {t.shell}
            </button>
            <button aria-label={`Close terminal ${i + 1}`} onClick={() => close(t.key)}>
              ×
            </button>
          </span>
        ))}
      </div>
      {sessions.map((t) => (
        <TerminalSession key={t.key} {...target} shell={t.shell} visible={t.key === active} />
      ))}
    </div>
  );
}

/** One shell; it stays connected while another terminal's tab is shown. */
function TerminalSession({
  containerId,
  running,
  startedAt,
  shell,
  visible,
}: Target & { shell: string; visible: boolean }) {
  const host = useRef<HTMLDivElement>(null);
  const [phase, setPhase] = useState<Phase>('connecting');
  const [message, setMessage] = useState('');
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!running) {
      setPhase('closed');
      setMessage('');
      return;
    }
    const term = new Terminal({ cursorBlink: true, convertEol: false, fontSize: 13, scrollback: 10_000 });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(host.current!);
    fit.fit();
    let ws: WebSocket | undefined;
    let execId = '';
    let disposed = false;
    const enc = new TextEncoder();
    const send = (s: string) => ws?.readyState === WebSocket.OPEN && ws.send(enc.encode(s));
    term.attachCustomKeyEventHandler((e) => {
      // The app's own keys leave the terminal (a keyboard is never trapped in it): Alt+1…9 the
      // sections, Ctrl+Shift+K the command palette, Ctrl+Shift+L back to its tab.
      if (e.altKey && /^[1-9]$/.test(e.key)) return false;
      if (e.type === 'keydown' && e.ctrlKey && e.shiftKey && e.code === 'KeyL') {
        e.preventDefault();
        host.current
          ?.closest('.terminal')
          ?.querySelector<HTMLElement>('[role=tab][aria-selected=true]')
          ?.focus();
        return false;
      }
      if (e.ctrlKey && e.shiftKey && e.code === 'KeyK') return false;
      if (e.type !== 'keydown' || !e.ctrlKey || !e.shiftKey) return true;
      if (e.code === 'KeyC') {
        void navigator.clipboard.writeText(term.getSelection());
        return false;
      }
      if (e.code === 'KeyV') {
        void navigator.clipboard.readText().then((t) => term.paste(t));
        return false;
      }
      return true;
    });
    term.onData(send);
    const resize = () => execId && engine.execResize(execId, term.rows, term.cols).catch(() => {});
    term.onResize(resize);
    const ro = new ResizeObserver(() => fit.fit());
    ro.observe(host.current!);

    setPhase('connecting');
    setMessage('');
    engine
      .execCreate(containerId, [shell])
      .then((created) => {
        if (disposed) return;
        execId = created!.Id;
        ws = new WebSocket(engine.execSocketUrl(execId));
        ws.binaryType = 'arraybuffer';
        ws.onopen = () => {
          setPhase('connected');
          void resize();
          term.focus();
        };
        // Podman refuses a resize until the exec runs, and the socket opens before the gateway
        // has started it: the first output says it runs, so the size is sent again then.
        let sized = false;
        ws.onmessage = (e) => {
          if (!sized) void resize();
          sized = true;
          term.write(new Uint8Array(e.data as ArrayBuffer));
        };
        ws.onclose = (e) => {
          if (disposed) return;
          setPhase('closed');
          setMessage(e.code >= 4000 ? `The engine refused: ${e.reason}` : 'The session ended.');
        };
      })
      .catch((err: unknown) => {
        setPhase('closed');
        setMessage(`Could not start ${shell}: ${errorText(err)}`);
      });
    return () => {
      disposed = true;
      ws?.close();
      ro.disconnect();
      term.dispose();
    };
  }, [containerId, running, startedAt, attempt, shell]);

  return (
    <div className="terminal-session" hidden={!visible}>
      <div className="toolbar">
        <span className={`badge term-${phase}`}>{phase}</span>
        {message ? <span role="status">{message}</span> : null}
        <span className="spacer" />
        <button onClick={() => setAttempt((n) => n + 1)} disabled={!running}>
          Reconnect
        </button>
      </div>
      <div ref={host} className="xterm-host" data-testid="terminal" />
    </div>
  );
}
