/** Every log line written by any gateway started in this test process (checked for secrets). */
export const capturedLogLines: string[] = [];
