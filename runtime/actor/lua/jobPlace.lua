-- Where a QUEUED_WRITE job stands in its instance's FIFO, in one read.
-- KEYS[1] instance's pending-job sorted set, KEYS[2] the job's result key
-- ARGV[1] job id
-- Returns {'head'} when it heads the queue, {'waiting', head job id} when a job is ahead
-- of it, {'done', result json or ''} when it is no longer pending (applied or failed for good).
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return {'done', redis.call('GET', KEYS[2]) or ''}
end
local head = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
if head == ARGV[1] then return {'head'} end
return {'waiting', head}
