-- A replica's usual: the lower of its own quantile and its model's over
-- all replicas (a replica whose log is all warm-up has no usual of its own).
-- The quantiles are quantile_cont's, computed as pct_ci.sql does, because
-- quantile_cont holds every sample of a group in memory that does not spill
-- (four metrics of every server record, per replica and per model: gigabytes
-- beyond the memory limit at 30M requests): each group's samples counted per
-- bucket (pct_bucket, which never decreases as the value grows), the bucket
-- of each rank needed found from the running counts, and only the samples of
-- those buckets sorted; pct_interp interpolates as quantile_cont does.
-- srv_qv: every sample, once; kind 0: a replica's samples, 1: a model's
-- (over all its replicas), the buckets counted per replica and model first.
--
-- reads: srv_p
-- writes: srv_qv
CREATE OR REPLACE TEMP VIEW srv_qv AS
SELECT rl, ms, msc, metric, v
FROM (SELECT rl, ms, msc, tpot_ns::DOUBLE AS tpot, pf_ns::DOUBLE AS pf, work_ns::DOUBLE AS work,
             ld_ns::DOUBLE AS ld
      FROM srv_p)
UNPIVOT (v FOR metric IN (tpot, pf, work, ld));
