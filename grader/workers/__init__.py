"""The worker pool both front doors grade on (`grader batch`, `grader serve`): local worker processes or a
Dask cluster behind one face (pool.py), one retry policy, the job record (job.py) and what runs it on a
worker (run.py, worker.py, sandboxes.py). It knows nothing of who asked.
"""
