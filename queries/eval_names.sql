-- eval_names.sql: the eval names of the evals input (--evals), sorted, for
-- analyze to check that each eval a contract constraint names is there.
SELECT DISTINCT eval FROM evals WHERE eval IS NOT NULL ORDER BY eval
