// The design system first: every screen's own sheet comes after it and refines it.
import './app/ui/ui.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App } from './app/shell/app';
import { ApiError, connectGateway } from './api/gateway';
import { markFailedStylesheets } from './api/network-failures';

// Server state is refreshed by engine events, not by focus or intervals.
const client = new QueryClient({
  defaultOptions: {
    queries: {
      refetchOnWindowFocus: false,
      staleTime: 60_000,
      // A 4xx answer will not change on retry: show it at once.
      retry: (count, err) => count < 1 && !(err instanceof ApiError && err.status >= 400 && err.status < 500),
    },
  },
});

markFailedStylesheets();

// The gateway's address and token first: every request carries them. Without them the shell
// says how to open the app.
void connectGateway()
  .catch(() => undefined)
  .then(() =>
    createRoot(document.getElementById('root')!).render(
      <StrictMode>
        <QueryClientProvider client={client}>
          <App />
        </QueryClientProvider>
      </StrictMode>,
    ),
  );
