//go:build windows

package transport

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// processTree is a job object holding the server and every process it
// starts: Windows has no process groups to signal, and a server started
// through a wrapper (npx.cmd runs cmd.exe, which runs node) would otherwise
// outlive the wrapper we kill. The job is made with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, so closing its last handle kills
// whatever is still in it; that handle is ours alone, so this also holds
// if our own process dies.
//
// Windows has no SIGTERM: there is no polite stage. A server is asked to
// exit by closing its stdin, and after CloseGrace the whole job is
// terminated (exit code 1).
//
// A process the server starts in the instant between its creation and its
// assignment to the job is not in the job (os/exec cannot start a process
// suspended); it is not killed with the tree.
type processTree struct {
	mu   sync.Mutex
	job  windows.Handle // 0 when there is none: not made, or released
	proc *os.Process
}

// prepare makes the job object, and starts cmd in a process group of its
// own so that Ctrl-C in our console is ours to handle and does not reach
// the server (as the process group does on Unix). Without a job the
// server alone is killed.
func (t *processTree) prepare(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("set job object limits: %w", err)
	}
	t.job = job
	return nil
}

// started puts the server into the job. Its children inherit the job from
// then on. The pid cannot have been reused: os.Process holds a handle to
// the process until Wait returns, and Wait has not been called yet.
func (t *processTree) started(proc *os.Process) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.proc = proc
	if t.job == 0 {
		return nil
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(proc.Pid))
	if err == nil {
		err = windows.AssignProcessToJobObject(t.job, h)
		windows.CloseHandle(h)
	}
	if err != nil {
		windows.CloseHandle(t.job)
		t.job = 0
		return fmt.Errorf("assign the server to a job object: %w", err)
	}
	return nil
}

// signal terminates the job, at either stage (there is no SIGTERM), or
// kills the server alone when there is no job.
func (t *processTree) signal(stage int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 && windows.TerminateJobObject(t.job, 1) == nil {
		return
	}
	if t.proc != nil {
		t.proc.Kill()
	}
}

// wait waits for the server to exit and reaps it. What it left running in
// its job is killed when the job is released (release), once the pipes are
// closed as well.
func (t *processTree) wait(cmd *exec.Cmd) error { return cmd.Wait() }

// release closes the job. The server has exited and its pipes are closed;
// anything it left running in the job is killed now
// (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE), so nothing outlives the transport.
// The lock keeps signal from using the handle after it is closed (a
// closed handle's value may be reused by another object).
func (t *processTree) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.job != 0 {
		windows.CloseHandle(t.job)
		t.job = 0
	}
}
