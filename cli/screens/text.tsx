// Ink's Text with every string in it printed inert. The screens show text from outside (names,
// event fields, runner answers, errors), and none of it may reach the terminal as control codes
// that retitle the window, clear the screen or overwrite a line. Screens import Text from here,
// never from ink, so no place can forget.
import { Text as InkText, type TextProps } from 'ink';
import { Children, type ReactNode } from 'react';
import { inert } from '../terminal-text.js';

export function Text({ children, ...props }: TextProps & { children?: ReactNode }) {
  return <InkText {...props}>{Children.map(children, (child) => (typeof child === 'string' ? inert(child) : child))}</InkText>;
}
