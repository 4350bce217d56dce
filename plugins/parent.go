package plugins

import (
	"os"
	"time"
)

// watchParent exits the process once it has been re-parented, i.e. its parent died.
func watchParent(ppid int) {
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for range t.C {
			if os.Getppid() != ppid {
				os.Exit(1)
			}
		}
	}()
}
