import { render } from 'preact';

render(<main><h1>Console da portaria</h1></main>, document.getElementById('app')!);
