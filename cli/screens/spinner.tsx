import { Text } from './text.js';
import { useEffect, useState } from 'react';
import { useColor } from './context.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function Spinner({ label }: { label: string }) {
  const color = useColor();
  const [i, setI] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setI((n) => (n + 1) % FRAMES.length), 100);
    return () => clearInterval(timer);
  }, []);
  return (
    <Text>
      <Text color={color('cyan')}>{FRAMES[i]}</Text> {label}
    </Text>
  );
}
