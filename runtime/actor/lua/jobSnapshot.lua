-- One atomic read of a BullMQ job's state and attempt count: read apart, a count taken during an attempt and a
-- state taken after it ended pair into a status no job was ever in (failed after one attempt of two).
-- KEYS[1] the job hash, KEYS[2..6] the completed, failed, delayed, prioritized and waiting-children sets,
-- KEYS[7..9] the active, wait and paused lists
-- ARGV[1] the job id
-- Returns {state, attemptsMade, finishedOn, failedReason}.
local f = redis.call('HMGET', KEYS[1], 'atm', 'finishedOn', 'failedReason')
local state = 'unknown'
local sets = {'completed', 'failed', 'delayed', 'prioritized', 'waiting-children'}
for i, name in ipairs(sets) do
  if redis.call('ZSCORE', KEYS[i + 1], ARGV[1]) then state = name break end
end
if state == 'unknown' then
  local lists = {'active', 'waiting', 'waiting'}
  for i, name in ipairs(lists) do
    if redis.call('LPOS', KEYS[i + 6], ARGV[1]) then state = name break end
  end
end
return {state, f[1] or '0', f[2] or '', f[3] or ''}
