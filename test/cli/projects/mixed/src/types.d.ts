declare function elicitInput(message: string): Promise<void>;
