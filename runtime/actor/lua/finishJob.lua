-- End a QUEUED_WRITE job that will not commit (failed for good, or found lost), storing
-- its outcome, and name the job that heads the instance's queue after it.
-- KEYS[1] instance's pending-job sorted set, KEYS[2] the job's result key
-- ARGV[1] job id, ARGV[2] outcome json, ARGV[3] result ttl (s)
-- Returns {1 when it ended the job, 0 when the job was no longer pending (it committed
-- meanwhile and keeps its stored outcome), the next head's job id or ''}.
local ended = redis.call('ZREM', KEYS[1], ARGV[1])
if ended == 1 then redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3]) end
return {ended, redis.call('ZRANGE', KEYS[1], 0, 0)[1] or ''}
