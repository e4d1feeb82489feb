// One result row: a mark, a name and what happened to it (a key, a reason). On one line when it
// fits; otherwise the detail goes under the name, wrapped, so nothing is cut off at 80 columns.
import { Text } from './text.js';
import { type ReactNode } from 'react';
import { cell, textWidth, wrap } from './format.js';

export interface EntryProps {
  id: string;
  mark: string;
  /** colour of the mark, already passed through the theme (undefined: none) */
  markColor?: string;
  name: string;
  detail: string;
  width: number;
}

const NAME_WIDTH = 20;

export function entryRows({ id, mark, markColor, name, detail, width }: EntryProps): ReactNode[] {
  const head = `${cell(name, NAME_WIDTH)}  `;
  if (4 + textWidth(head) + textWidth(detail) <= width) {
    return [
      <Text key={id} wrap="truncate">
        <Text color={markColor}>{`  ${mark} `}</Text>
        {head + detail}
      </Text>,
    ];
  }
  return [
    <Text key={id} wrap="truncate">
      <Text color={markColor}>{`  ${mark} `}</Text>
      {name}
    </Text>,
    ...wrap(detail, width - 6).map((part, i) => (
      <Text key={`${id}:${i}`} wrap="truncate">{`      ${part}`}</Text>
    )),
  ];
}
