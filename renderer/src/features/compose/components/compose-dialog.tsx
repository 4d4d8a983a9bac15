// `up` and `down` of a compose file, run by the docker-compose installed where the app runs
// (through the gateway, pointed at the selected engine), with its output; said plainly when
// docker-compose is not there.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ComposeRequest, ComposeResult, ComposeTool } from '../../../../../daemon/api/desktop-types';
import { useEngineTarget } from '../../../api/engine-target';
import { errorText, getJson, sendJson } from '../../../api/gateway';
import { Dialog } from '../../../app/ui/dialog';

export function ComposeDialog({ onClose }: { onClose: () => void }) {
  const tool = useQuery({
    queryKey: ['desktop-compose'],
    queryFn: () => getJson<ComposeTool>('/api/compose'),
  });
  const engineId = useEngineTarget((t) => t.id);
  const qc = useQueryClient();
  const [project, setProject] = useState('');
  const [file, setFile] = useState('');
  const [volumes, setVolumes] = useState(false);
  const [running, setRunning] = useState<'up' | 'down'>();
  const [result, setResult] = useState<{ action: string; ok: boolean; text: string }>();
  const go = async (action: 'up' | 'down') => {
    setRunning(action);
    setResult(undefined);
    try {
      const body: ComposeRequest = { engine: engineId, project: project.trim(), file, volumes };
      const r = (await sendJson<ComposeResult>('POST', `/api/compose/${action}`, body))!;
      setResult({
        action,
        ok: r.exitCode === 0,
        text: r.output || `docker-compose ${action} exited with ${r.exitCode}`,
      });
    } catch (err) {
      setResult({ action, ok: false, text: errorText(err) });
    } finally {
      setRunning(undefined);
      void qc.invalidateQueries({ queryKey: ['containers'] });
    }
  };
  const ready = !!project.trim() && !!file.trim() && !running;
  return (
    <Dialog title="Compose up or down" onClose={onClose}>
      {tool.data && !tool.data.available ? (
        <p className="error" role="alert" data-testid="compose-missing">
          docker-compose is not installed where the app runs, so compose files cannot be brought up or down
          from here (on Debian: <code>apt-get install docker-compose</code>). Projects made elsewhere are
          still grouped in the list, and can be stopped and removed as one.
        </p>
      ) : null}
      <form className="form" onSubmit={(e) => e.preventDefault()}>
        {tool.data?.version ? <p className="muted">docker-compose {tool.data.version}</p> : null}
        <label>
          Project name
          <input
            value={project}
            onChange={(e) => setProject(e.target.value)}
            placeholder="shop"
            data-autofocus
          />
        </label>
        <label>
          Compose file (docker-compose.yml)
          <input
            type="file"
            accept=".yml,.yaml"
            onChange={(e) => void e.target.files?.[0]?.text().then(setFile)}
          />
        </label>
        <label>
          Its text
          <textarea rows={8} value={file} onChange={(e) => setFile(e.target.value)} spellCheck={false} />
        </label>
        <label className="inline">
          <input type="checkbox" checked={volumes} onChange={(e) => setVolumes(e.target.checked)} /> Down
          removes its volumes too
        </label>
        {result ? (
          <pre
            className={result.ok ? 'raw' : 'raw error'}
            role={result.ok ? 'status' : 'alert'}
            data-testid="compose-output"
          >
            {result.text}
          </pre>
        ) : null}
        <footer>
          <button type="button" onClick={onClose}>
            Close
          </button>
          <button type="button" disabled={!ready || !tool.data?.available} onClick={() => void go('down')}>
            {running === 'down' ? 'Bringing down…' : 'Down'}
          </button>
          <button
            type="button"
            className="btn-primary"
            disabled={!ready || !tool.data?.available}
            onClick={() => void go('up')}
          >
            {running === 'up' ? 'Bringing up…' : 'Up'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}
