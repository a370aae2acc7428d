"""`grader validate`: prove an exercise before students see it (references, expectations, checkers, limits)."""

from grader.validation.results import ExerciseValidation, ReferenceCheck, TimingRow
from grader.validation.validator import validate_exercise

__all__ = ["ExerciseValidation", "ReferenceCheck", "TimingRow", "validate_exercise"]
