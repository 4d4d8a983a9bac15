// The current time, re-read every second while a screen shows relative times, so "5 seconds
// ago" keeps counting without asking the engine again.
import { useEffect, useState } from 'react';

export function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}
