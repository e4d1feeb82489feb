export const sessionStatusColor = (status: string) =>
  status === 'completed' ? 'green' : status === 'failed' ? 'red' : status === 'cancelled' ? 'gray' : 'yellow';
