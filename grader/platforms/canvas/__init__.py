"""Canvas: the gradebook it imports (`grader batch --gradebook canvas`: gradebook.py). Its submissions
download is read by grader/batch/layouts.py and its roster by grader/batch/roster.py, with every platform's;
its LTI 1.3 launches are grader/platforms/lti/'s."""
