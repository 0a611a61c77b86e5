//! Who answers for the user. Under `-p` nobody does: a call that needs a decision is refused with
//! the text the mode gives. An SDK host answers `can_use_tool` requests over the control protocol
//! on stdin/stdout (`control`); a person answers cards at a terminal (`terminal`). The tools only
//! a person can answer (AskUserQuestion, EnterPlanMode, ExitPlanMode) are offered only when
//! someone can, as 2.1.235 offers them only with a permission-prompt tool. Both hosts implement
//! the tools' `Host` trait: the tools ask through it without knowing who answers.

pub mod control;
pub mod queue;
pub mod terminal;
