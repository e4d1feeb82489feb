// A logger that keeps what it was told, for asserting on warnings.
export interface CapturedLog {
  level: 'info' | 'warn' | 'error';
  obj: unknown;
  msg: string;
}

export function captureLogger() {
  const lines: CapturedLog[] = [];
  const at =
    (level: CapturedLog['level']) =>
    (objOrMsg: object | string, msg?: string): void => {
      if (typeof objOrMsg === 'string') lines.push({ level, obj: undefined, msg: objOrMsg });
      else lines.push({ level, obj: objOrMsg, msg: msg ?? '' });
    };
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}
